// Compiles src/main.ts into one executable for a target (scripts/build.ts for this machine,
// scripts/build-all.ts for every platform a release ships).
//
// The binary carries everything it needs: the code, the PGlite WASM module and data bundle
// (imported `with { type: "file" }` in src/db/client.ts), the migrations (src/db/migrations.gen.ts),
// the initial data a first start unpacks (made by the caller with scripts/initial-data.ts, imported as
// a file by src/db/shipped-initial-data.ts) and the dashboard's script and stylesheet (bundled once by
// the caller and written into src/dashboard/prebuilt.ts); those two modules are rewritten in the
// compile's view only (the files on disk stay null), so it runs from an empty directory.
//
// Autoload is off on purpose: by default a compiled Bun binary reads
// `.env` and `bunfig.toml` from whatever directory it is started in. depot's configuration comes
// from the real environment only (docs/reference/configuration.md), so a stray `.env` or `bunfig.toml` next to the
// data directory must not change what it does. tsconfig.json and package.json autoload are off by
// default; they are set here anyway so the choice is visible.
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { buildDashboard } from "../../src/dashboard/bundle.ts";
import {
  CLIENT_PLATFORMS,
  type ClientPlatform,
  releaseFileName,
} from "../../src/features/binaries/service.ts";
import { MAX_HEADER_SIZE_FLAG } from "../../src/http/header-size.ts";

export const root = fileURLToPath(new URL("../../", import.meta.url));

/** The platforms a release ships: `bun-<target>` is Bun's compile target, `depot-<target>` the file. */
export const RELEASE_TARGETS = CLIENT_PLATFORMS;
export type ReleaseTarget = ClientPlatform;
/** dist/depot-linux-x64, dist/depot-windows-x64.exe: the names install.sh and /client/depot look for. */
export { releaseFileName };

type Dashboard = Awaited<ReturnType<typeof buildDashboard>>;

/**
 * Compiles the binary to `outfile` with `initialData` (the archive of src/db/initial-data.ts) embedded;
 * `target` omitted means this machine. Exits on a failed build.
 */
export async function compileDepot(
  outfile: string,
  dashboard: Dashboard,
  initialData: string,
  target?: ReleaseTarget,
) {
  rmSync(outfile, { force: true });
  const result = await Bun.build({
    entrypoints: [`${root}src/main.ts`],
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
    // and lines even with no .map beside it. Bun also writes OUTFILE.map; it is removed below so
    // dist/ holds only the files that ship.
    sourcemap: "linked",
    files: {
      [`${root}src/dashboard/prebuilt.ts`]: `export const prebuilt = ${JSON.stringify(dashboard)};\n`,
      [`${root}src/db/shipped-initial-data.ts`]: [
        `import archive from ${JSON.stringify(initialData)} with { type: "file" };`,
        "export const shippedInitialData: string | null = archive;",
        "",
      ].join("\n"),
    },
    throw: false,
    compile: {
      outfile,
      // Bun fetches the runtime of another platform from the npm registry (then caches it).
      ...(target ? { target: `bun-${target}` as const } : {}),
      // Bun refuses request headers over 16 KiB in all (431) unless started with a larger limit, and
      // electron-updater's differential download sends up to 1,000 ranges in one Range header: about
      // 21 KiB for a 100 MiB file. The binary starts with room for that (docs/integrators.md).
      execArgv: [MAX_HEADER_SIZE_FLAG],
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
  });
  if (!result.success) {
    for (const message of result.logs) console.error(message);
    console.error(`build failed${target ? ` for ${target}` : ""}`);
    process.exit(1);
  }
  for (const message of result.logs) console.warn(message);
  // Bun names the map after the file without its `.exe` on Windows targets.
  rmSync(`${outfile.replace(/\.exe$/, "")}.map`, { force: true });
}
