import { createWriteStream, existsSync, statSync } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { sql } from "drizzle-orm";
import pkg from "../../package.json" with { type: "json" };
import type { Config } from "../config.ts";
import { openEmbedded } from "../db/client.ts";
import { isInitialised } from "../db/embedded-init.ts";
import { DataDirInUse } from "../db/embedded-lock.ts";
import { selectRows } from "../db/rows.ts";
import { BackupFailed } from "./errors.ts";
import {
  APP_KEY_ENTRY,
  appliedMigrations,
  countRows,
  DATABASE_ENTRY,
  MANIFEST_ENTRY,
  MANIFEST_FORMAT,
  type Manifest,
  type ManifestFile,
  RELEASES_PREFIX,
} from "./manifest.ts";
import { Progress } from "./progress.ts";
import { type TarEntry, writeTar } from "./tar.ts";

export interface BackupResult {
  file: string;
  /** Size of the archive (gzip). */
  bytes: number;
  created_at: string;
  depot_version: string;
  migrations: string[];
  tables: Record<string, number>;
  release_files: number;
  release_bytes: number;
}

/** One entry to archive: its bytes come from `source` and must hash to `sha256`. */
interface Planned extends ManifestFile {
  source: { path: string } | { bytes: Uint8Array };
  /** What a mismatch means, for the error. */
  what: string;
}

/**
 * Writes a gzip'd tar of the embedded installation to `file`: the manifest, PGlite's dump of its data
 * directory, `app.key` and the release file of every version in that dump.
 *
 * Consistency: the backup takes the data directory's lock (a running `serve` holds it, and the backup
 * is refused), so nothing writes while it runs. The database is dumped first and the file list comes
 * from that same state, so the archive never holds a version without its file; each file must still
 * match the size and SHA-256 its version records, or the backup fails. The archive is written next to
 * `file` and renamed into place at the end: a failed backup leaves nothing.
 */
export async function createBackup(config: Config, file: string): Promise<BackupResult> {
  const target = resolve(file);
  const dbPath = join(config.dataDir, "db");
  if (!isInitialised(dbPath))
    throw new BackupFailed(`there is no embedded database in ${config.dataDir} to back up`);
  const database = await openEmbedded(config.dataDir).catch((error: unknown) => {
    if (error instanceof DataDirInUse) {
      throw new BackupFailed(
        `the embedded database in ${config.dataDir} is in use by depot (pid ${error.pid}); a copy taken beside it ` +
          "could be torn, so stop it, run depot backup, then start it again (README: Backups)",
      );
    }
    throw error;
  });
  const partial = `${target}.partial-${process.pid}`;
  try {
    const pglite = database.pglite;
    if (!pglite) throw new Error("the embedded database has no PGlite handle");
    // The snapshot first; everything below reads the same, unchanging state (we hold the lock).
    const dump = new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
    const migrationsApplied = await appliedMigrations(database.db);
    const tables = await countRows(database.db);
    const versions = await selectRows<{ id: number; storage_key: string; sha256: string; file_size: string }>(
      database.db,
      sql`SELECT id, storage_key, sha256, file_size::text FROM versions ORDER BY id`,
    );

    const planned: Planned[] = [
      { path: DATABASE_ENTRY, ...digest(dump), source: { bytes: dump }, what: "the database dump" },
    ];
    const appKeyPath = join(config.dataDir, "app.key");
    if (existsSync(appKeyPath)) {
      const bytes = new Uint8Array(await Bun.file(appKeyPath).arrayBuffer());
      planned.push({ path: APP_KEY_ENTRY, ...digest(bytes), source: { bytes }, what: "app.key" });
    }
    const seen = new Set<string>();
    for (const version of versions) {
      if (seen.has(version.storage_key)) continue;
      seen.add(version.storage_key);
      const path = join(config.storageDir, version.storage_key);
      const size = Number(version.file_size);
      const onDisk = existsSync(path) ? statSync(path).size : null;
      if (onDisk !== size) {
        throw new BackupFailed(
          `the release file of version ${version.id} (${path}) is ${onDisk === null ? "missing" : `${onDisk} bytes, not ${size}`}; nothing was written`,
        );
      }
      planned.push({
        path: `${RELEASES_PREFIX}${version.storage_key}`,
        size,
        sha256: version.sha256,
        source: { path },
        what: `the release file of version ${version.id} (${path})`,
      });
    }

    const createdAt = new Date().toISOString();
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      depot_version: pkg.version,
      created_at: createdAt,
      migrations: migrationsApplied,
      tables,
      files: planned.map(({ path, size, sha256 }) => ({ path, size, sha256 })),
    };
    const manifestBytes = new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
    const releaseBytes = planned
      .filter((p) => p.path.startsWith(RELEASES_PREFIX))
      .reduce((sum, p) => sum + p.size, 0);
    const progress = new Progress(
      "backup",
      planned.reduce((sum, p) => sum + p.size, 0),
    );

    const entries: TarEntry[] = [
      { name: MANIFEST_ENTRY, size: manifestBytes.byteLength, body: once(manifestBytes) },
      ...planned.map((p) => ({ name: p.path, size: p.size, body: checked(p, progress) })),
    ];
    await pipeline(
      Readable.from(writeTar(entries)),
      createGzip(),
      createWriteStream(partial, { flags: "wx" }),
    );
    progress.finish();
    await syncFile(partial);
    await rename(partial, target);
    return {
      file: target,
      bytes: (await stat(target)).size,
      created_at: createdAt,
      depot_version: pkg.version,
      migrations: migrationsApplied.map((m) => m.tag ?? String(m.created_at)),
      tables,
      release_files: planned.filter((p) => p.path.startsWith(RELEASES_PREFIX)).length,
      release_bytes: releaseBytes,
    };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    await database.close();
  }
}

/** The archive is on disk before its name says it is complete. */
async function syncFile(path: string) {
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function digest(bytes: Uint8Array): { size: number; sha256: string } {
  return { size: bytes.byteLength, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
}

async function* once(bytes: Uint8Array) {
  yield bytes;
}

/** The entry's bytes, hashed on the way: a file that is not what its version records fails the backup. */
async function* checked(entry: Planned, progress: Progress): AsyncGenerator<Uint8Array> {
  const hash = new Bun.CryptoHasher("sha256");
  const chunks: AsyncIterable<Uint8Array> =
    "bytes" in entry.source ? once(entry.source.bytes) : Bun.file(entry.source.path).stream();
  for await (const chunk of chunks) {
    hash.update(chunk);
    progress.advance(chunk.byteLength);
    yield chunk;
  }
  if (hash.digest("hex") !== entry.sha256) {
    throw new BackupFailed(`${entry.what} does not match its recorded SHA-256; nothing was written`);
  }
}
