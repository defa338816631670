// Makes the archive of an initialised, migrated embedded database that a first start unpacks instead
// of running initdb (src/db/initial-data.ts): PGlite's initdb in a temporary directory, every
// migration, pg-boss's schema, a clean shutdown, then the directory as a gzipped tar (src/backup/tar.ts).
//
//   bun scripts/initial-data.ts          # into .cache/initial-data/<key>.tar.gz
//   bun scripts/initial-data.ts FILE     # into FILE
//
// `npm run build` / `build:all` embed it in the binary (scripts/lib/compile.ts); the tests' preload
// (tests/setup.ts) and a start from the sources make it when the schema has none yet.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, sep } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type ConstructorOptions, fromPglite, PgBoss } from "pg-boss";
import { type TarEntry, writeTar } from "../src/backup/tar.ts";
import { pgliteAssets, wrapPglite } from "../src/db/client.ts";
import { cachedInitialData, initialDataCache } from "../src/db/initial-data.ts";
import { type Migration, migrate } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations.gen.ts";

/**
 * Writes the archive to `archive` (through a temporary name: a reader never sees half of one).
 * `applied` is every migration unless a test asks for fewer.
 */
export async function buildInitialData(archive: string, applied: Migration[] = migrations): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "depot-initial-data-"));
  try {
    const dir = join(work, "db");
    // On a directory, PGlite runs initdb (reading initdb.wasm from node_modules itself).
    const pglite = await PGlite.create(dir, await pgliteAssets());
    try {
      await migrate(wrapPglite(pglite).db, applied);
      await installPgBoss({ db: fromPglite(pglite), backend: "pglite" });
    } finally {
      // A clean shutdown: the first start opens it as any stopped database, with nothing to recover.
      await pglite.close();
    }
    const tar: Uint8Array[] = [];
    for await (const chunk of writeTar(directoryEntries(dir))) tar.push(chunk);
    mkdirSync(dirname(archive), { recursive: true });
    const partial = `${archive}.${process.pid}.partial`;
    await Bun.write(partial, Bun.gzipSync(Buffer.concat(tar), { level: 9 }));
    renameSync(partial, archive);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Creates pg-boss's schema, as its first `start` does (JobRunner starts it at every start). */
export async function installPgBoss(options: ConstructorOptions): Promise<void> {
  const boss = new PgBoss(options);
  await boss.start();
  await boss.stop({ graceful: false, close: true });
}

/** Every directory (empty ones too: PostgreSQL needs them) and file below `dir`, parents first. */
function directoryEntries(dir: string): TarEntry[] {
  const entries: TarEntry[] = [];
  const walk = (path: string) => {
    const children = readdirSync(path, { withFileTypes: true }).toSorted((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const child of children) {
      const full = join(path, child.name);
      const name = relative(dir, full).split(sep).join("/");
      if (child.isDirectory()) {
        entries.push({ name, type: "directory", size: 0, body: once(new Uint8Array(0)) });
        walk(full);
      } else if (child.isFile()) {
        const bytes = readFileSync(full);
        entries.push({ name, size: bytes.byteLength, body: once(bytes) });
      }
    }
  };
  walk(dir);
  return entries;
}

async function* once(bytes: Uint8Array) {
  if (bytes.byteLength > 0) yield bytes;
}

if (import.meta.main) {
  const asked = process.argv[2];
  const archive = asked ?? (await cachedInitialData());
  const started = performance.now();
  await buildInitialData(archive);
  if (!asked) {
    // Archives of earlier schemas are never read again.
    for (const name of readdirSync(initialDataCache())) {
      if (name.endsWith(".tar.gz") && name !== basename(archive))
        rmSync(join(initialDataCache(), name), { force: true });
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`wrote ${archive} (${(Bun.file(archive).size / 1024 / 1024).toFixed(1)} MiB) in ${seconds} s`);
}
