// Builds the single executable dist/depot from src/main.ts (`bun run build`).
//
// The binary carries everything it needs: the code, the PGlite WASM modules and data bundle
// (imported `with { type: "file" }` in src/db/client.ts) and the migrations
// (src/db/migrations.gen.ts) and the dashboard's script and stylesheet (bundled here first and written
// into src/dashboard/prebuilt.ts in the compile's view only: the file on disk stays null), so it runs
// from an empty directory.
//
// Autoload is off on purpose: by default a compiled Bun binary reads
// `.env` and `bunfig.toml` from whatever directory it is started in. depot's configuration comes
// from the real environment only (README, Configuration), so a stray `.env` or `bunfig.toml` next to the
// data directory must not change what it does. tsconfig.json and package.json autoload are off by
// default; they are set here anyway so the choice is visible.
import { mkdirSync, rmSync, statSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildDashboard } from "../src/dashboard/bundle.ts";
import { MAX_HEADER_SIZE_FLAG } from "../src/http/header-size.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
const entry = `${root}src/main.ts`;
const outfile = `${root}dist/depot`;

mkdirSync(`${root}dist`, { recursive: true });
rmSync(outfile, { force: true });

const started = performance.now();
// The compiled binary has no sources to bundle at run time: it gets the dashboard already bundled.
const dashboard = await buildDashboard();
const result = await Bun.build({
  entrypoints: [entry],
  target: "bun",
  format: "esm",
  // Whitespace and syntax only, as Elysia's deployment guide says. Do not minify identifiers
  // (`--minify`): Elysia reads handler and plugin source to decide what to parse, and with renamed
  // parameters @elysiajs/bearer threw a TypeError, so a request without a token got 500, not 401
  // (scripts/smoke-binary.sh caught it).
  minify: { whitespace: true, syntax: true, identifiers: false },
  // Precompiled bytecode: `depot --version` ≈100 → 22 ms and a warm `serve` ≈480 → 390 ms to
  // healthy on the bench machine (bench/README.md), for 7 MiB more binary. ESM bytecode needs `compile`.
  bytecode: true,
  // With `compile`, the source map is embedded in the executable: stack traces name src/… files
  // and lines even with no .map beside it. Bun also writes dist/depot.map; it is removed below so
  // dist/ holds the one file that ships.
  sourcemap: "linked",
  files: {
    [`${root}src/dashboard/prebuilt.ts`]: `export const prebuilt = ${JSON.stringify(dashboard)};\n`,
  },
  throw: false,
  compile: {
    outfile,
    // Bun refuses request headers over 16 KiB in all (431) unless started with a larger limit, and
    // electron-updater's differential download sends up to 1,000 ranges in one Range header: about
    // 21 KiB for a 100 MiB file. The binary starts with room for that (README, Downloads).
    execArgv: [MAX_HEADER_SIZE_FLAG],
    autoloadDotenv: false,
    autoloadBunfig: false,
    autoloadTsconfig: false,
    autoloadPackageJson: false,
  },
});

if (!result.success) {
  for (const message of result.logs) console.error(message);
  console.error("build failed");
  process.exit(1);
}
for (const message of result.logs) console.warn(message);
rmSync(`${outfile}.map`, { force: true });

const size = statSync(outfile).size;
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const gzipped = (text: string) => `${(Bun.gzipSync(text).length / 1024).toFixed(1)} KiB gzipped`;
console.log(
  `dashboard: ${dashboard.script.name} ${gzipped(dashboard.script.text)}, ${dashboard.stylesheet.name} ${gzipped(dashboard.stylesheet.text)}`,
);
console.log(
  `wrote ${relative(process.cwd(), outfile) || outfile} (${(size / 1024 / 1024).toFixed(1)} MiB, ${size} bytes) in ${seconds} s`,
);
