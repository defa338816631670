// Cross-compiles depot for every platform a release ships (`npm run build:all`): dist/depot-<target>
// (dist/depot-windows-x64.exe) and dist/SHA256SUMS in `sha256sum -c` format, which
// scripts/install.sh and .github/workflows/release.yml use. Bun fetches each foreign runtime from the
// npm registry the first time (then caches it).
//
// With DEPOT_RELEASE_KEY_FILE (a minisign secret key without a password) it signs SHA256SUMS into
// dist/SHA256SUMS.minisig and writes dist/install.sh, scripts/install.sh with the key's public half
// pinned (scripts/lib/release-signature.ts; docs/operators.md: Releasing). Without one the build is
// unsigned, and says so: install.sh refuses unsigned binaries.
//
//   bun scripts/build-all.ts                 # all five
//   bun scripts/build-all.ts linux-x64 ...   # only these (SHA256SUMS lists what dist/ then holds)
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import pkg from "../package.json" with { type: "json" };
import { buildDashboard } from "../src/dashboard/bundle.ts";
import { initialDataArchive } from "../src/db/initial-data.ts";
import { compileDepot, RELEASE_TARGETS, type ReleaseTarget, releaseFileName, root } from "./lib/compile.ts";
import {
  minisignSignature,
  pinnedInstallScript,
  type ReleaseKey,
  ReleaseKeyError,
  readReleaseKey,
} from "./lib/release-signature.ts";

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(RELEASE_TARGETS as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown target ${unknown.join(", ")} (known: ${RELEASE_TARGETS.join(", ")})`);
  process.exit(2);
}
const targets = (asked.length > 0 ? asked : RELEASE_TARGETS) as ReleaseTarget[];

// Read before the build, so a key that cannot sign stops it at once rather than after minutes.
const signing = releaseSigning(process.env.DEPOT_RELEASE_KEY_FILE);

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
signRelease(signing);

/** The release key and install.sh pinning it; null without DEPOT_RELEASE_KEY_FILE; exit 1 if it cannot sign. */
function releaseSigning(path: string | undefined): { key: ReleaseKey; installScript: string } | null {
  if (!path) return null;
  try {
    const key = readReleaseKey(path);
    return {
      key,
      installScript: pinnedInstallScript(readFileSync(`${root}scripts/install.sh`, "utf8"), key),
    };
  } catch (error) {
    if (!(error instanceof ReleaseKeyError)) throw error;
    console.error(`DEPOT_RELEASE_KEY_FILE: ${error.message}`);
    process.exit(1);
  }
}

/** SHA256SUMS.minisig and install.sh for this SHA256SUMS, or neither: a stale one never stays beside it. */
function signRelease(release: { key: ReleaseKey; installScript: string } | null) {
  const signature = `${dist}/SHA256SUMS.minisig`;
  const installer = `${dist}/install.sh`;
  if (!release) {
    rmSync(signature, { force: true });
    rmSync(installer, { force: true });
    console.log(
      "dist/SHA256SUMS is NOT signed (DEPOT_RELEASE_KEY_FILE is not set): scripts/install.sh refuses these binaries",
    );
    return;
  }
  const { key, installScript } = release;
  const comment = `timestamp:${Math.floor(Date.now() / 1000)}\tfile:SHA256SUMS\tdepot ${pkg.version}`;
  writeFileSync(signature, minisignSignature(key, readFileSync(`${dist}/SHA256SUMS`), comment));
  writeFileSync(installer, installScript, { mode: 0o755 });
  console.log(`signed dist/SHA256SUMS with key ${key.id}: dist/SHA256SUMS.minisig; dist/install.sh pins`);
  console.log(`  ${key.publicKey}`);
}

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
