import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pgBossPackage from "pg-boss/package.json" with { type: "json" };
import { migrations } from "./migrations.gen.ts";
import { shippedInitialData } from "./shipped-initial-data.ts";

// A first start on the embedded database unpacks an archive of a data directory that PGlite's initdb,
// every migration and pg-boss's schema have already been run on (embedded-init.ts), instead of running
// initdb: scripts/initial-data.ts makes it, the compiled binary carries it, and from the sources it is
// made once per schema and kept in .cache/initial-data/.

/** Paths in the checkout: the sources only (the compiled binary has none). */
const inCheckout = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const builder = () => inCheckout("scripts/initial-data.ts");
export const initialDataCache = () => inCheckout(".cache/initial-data");

/**
 * Names the archive after everything that shapes it: the migrations, the PGlite (PostgreSQL) and
 * pg-boss versions, and the code that makes it and records the migrations. Sources only.
 */
export async function initialDataKey(): Promise<string> {
  const hash = new Bun.CryptoHasher("sha256")
    .update(`pglite ${await pgliteVersion()}\npg-boss ${pgBossPackage.version}\n`)
    .update(await Bun.file(builder()).text())
    .update(await Bun.file(new URL("./migrate.ts", import.meta.url)).text());
  for (const m of migrations) hash.update(`${m.tag} ${m.createdAt}\n${m.sql}\n`);
  return hash.digest("hex").slice(0, 16);
}

/** PGlite's "exports" leave its package.json out: it is read beside the module Bun resolves. */
async function pgliteVersion(): Promise<string> {
  const entry = Bun.resolveSync("@electric-sql/pglite", import.meta.dir); // …/pglite/dist/index.js
  const manifest: { version: string } = await Bun.file(join(dirname(entry), "../package.json")).json();
  return manifest.version;
}

/** Where the sources keep the archive for this schema. */
export async function cachedInitialData(): Promise<string> {
  return join(initialDataCache(), `${await initialDataKey()}.tar.gz`);
}

/**
 * The archive a first start unpacks: the one embedded in the compiled binary; from the sources the
 * cached one, made first (by scripts/initial-data.ts in a process of its own: initdb leaves the process
 * that runs it at about 1 GiB) when this schema has none yet.
 */
export async function initialDataArchive(): Promise<string> {
  if (shippedInitialData) return shippedInitialData;
  const cached = await cachedInitialData();
  if (existsSync(cached)) return cached;
  const child = Bun.spawn([process.execPath, builder()], { stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0 || !existsSync(cached)) {
    throw new Error(`making the embedded database's initial data failed (exit ${code}): ${stderr.trim()}`);
  }
  return cached;
}
