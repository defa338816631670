// Cross-compiles depot for every platform a release ships (`npm run build:all`): dist/depot-<target>
// (dist/depot-windows-x64.exe) and dist/SHA256SUMS in `sha256sum -c` format, which
// scripts/install.sh and .github/workflows/release.yml use. Bun fetches each foreign runtime from the
// npm registry the first time (then caches it).
//
//   bun scripts/build-all.ts                 # all five
//   bun scripts/build-all.ts linux-x64 ...   # only these (SHA256SUMS lists what dist/ then holds)
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { buildDashboard } from "../src/dashboard/bundle.ts";
import { initialDataArchive } from "../src/db/initial-data.ts";
import { compileDepot, RELEASE_TARGETS, type ReleaseTarget, releaseFileName, root } from "./lib/compile.ts";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(RELEASE_TARGETS as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown target ${unknown.join(", ")} (known: ${RELEASE_TARGETS.join(", ")})`);
  process.exit(2);
}
const targets = (asked.length > 0 ? asked : RELEASE_TARGETS) as ReleaseTarget[];

const dist = `${root}dist`;
mkdirSync(dist, { recursive: true });
const started = performance.now();
const dashboard = await buildDashboard();
// The same for every platform: PostgreSQL's files in PGlite's WASM build do not depend on it.
const initialData = await initialDataArchive();
for (const target of targets) {
  const began = performance.now();
  const file = `${dist}/${releaseFileName(target)}`;
  await compileDepot(file, dashboard, initialData, target);
  const mib = (statSync(file).size / 1024 / 1024).toFixed(1);
  console.log(`wrote dist/${releaseFileName(target)} (${mib} MiB) in ${seconds(began)} s`);
}

// Every release file present, whether built now or by an earlier run for other targets.
const lines: string[] = [];
for (const target of RELEASE_TARGETS) {
  const name = releaseFileName(target);
  if (existsSync(`${dist}/${name}`)) lines.push(`${await sha256(`${dist}/${name}`)}  ${name}`);
}
writeFileSync(`${dist}/SHA256SUMS`, `${lines.join("\n")}\n`);
console.log(
  `wrote dist/SHA256SUMS (${lines.length} files); ${targets.length} built in ${seconds(started)} s`,
);

function seconds(since: number) {
  return ((performance.now() - since) / 1000).toFixed(1);
}

/** Streamed: each file is about 100 MiB. */
function sha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}
