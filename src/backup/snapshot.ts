import { existsSync, statSync } from "node:fs";
import { link, mkdir, open, readdir, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { PRIVATE_DIRECTORY } from "../file-modes.ts";
import { hashFile } from "../storage/disk-io.ts";
import { BackupFailed } from "./errors.ts";
import { appliedMigrations, countRows, type Manifest, queryOn } from "./manifest.ts";

/** A file of PUBLIC_DIR (a product image), hashed when the snapshot was taken, and where to read it from. */
export interface PublicFile {
  /** Its path inside PUBLIC_DIR. */
  key: string;
  size: number;
  sha256: string;
  /** A hard link taken at the snapshot (a deletion afterwards cannot take it away), or the file itself. */
  path: string;
}

/** A release file the snapshot's versions name (`key` is its storage key, size and SHA-256 the version's). */
export interface SnapshotFile extends PublicFile {
  versionId: number;
}

export interface Snapshot {
  dump: Uint8Array;
  migrations: Manifest["migrations"];
  tables: Record<string, number>;
  files: SnapshotFile[];
  publicFiles: PublicFile[];
  /** Removes the hard links; call it once the files are archived. */
  release(): Promise<void>;
}

/**
 * One consistent point of the embedded installation: PGlite's dump of its data directory, the row
 * counts and the release files of exactly that state.
 *
 * PGlite runs one statement at a time and a transaction holds it for its whole length (every
 * `query` and `transaction` waits for it), so inside this transaction nothing else reads or writes:
 * the dump, the counts and the version list all see the same committed state. A running server's
 * requests and jobs wait for that moment (about a second for a small database). The files are hard-
 * linked into `STORAGE_DIR/.backup-<id>/` in the same moment, so a version deleted while the archive
 * is written keeps its file in the backup; where links are not possible the backup reads the files
 * themselves, and a deletion meanwhile fails it (it is never torn).
 */
export async function takeSnapshot(
  pglite: PGlite,
  dirs: { storageDir: string; publicDir: string },
): Promise<Snapshot> {
  const { storageDir } = dirs;
  const staging = join(storageDir, `.backup-${crypto.randomUUID()}`);
  const release = () => rm(staging, { recursive: true, force: true });
  try {
    const state = await pglite.transaction(async (tx) => {
      // The database first; the files are the ones its versions name.
      const dump = new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
      const query = queryOn(tx);
      const migrations = await appliedMigrations(query);
      const tables = await countRows(query);
      // Every artifact's file, and its blockmap if it has one.
      const versions = await query<{ id: number; storage_key: string; sha256: string; file_size: string }>(
        `SELECT version_id AS id, storage_key, sha256, file_size::text AS file_size FROM artifacts
         UNION ALL
         SELECT version_id, blockmap_storage_key, blockmap_sha256, blockmap_size::text FROM artifacts
         WHERE blockmap_storage_key IS NOT NULL
         ORDER BY 1, 2`,
      );
      const files: SnapshotFile[] = [];
      const seen = new Set<string>();
      for (const version of versions) {
        if (seen.has(version.storage_key)) continue;
        seen.add(version.storage_key);
        const original = join(storageDir, version.storage_key);
        const size = Number(version.file_size);
        const onDisk = existsSync(original) ? statSync(original).size : null;
        if (onDisk !== size) {
          throw new BackupFailed(
            `the release file of version ${version.id} (${original}) is ${onDisk === null ? "missing" : `${onDisk} bytes, not ${size}`}; nothing was written`,
          );
        }
        const path = await linkOrSelf(original, join(staging, version.storage_key));
        files.push({ key: version.storage_key, size, sha256: version.sha256, versionId: version.id, path });
      }
      return { dump, migrations, tables, files };
    });
    // Product images are no part of the database: taken after it, without holding it.
    const publicFiles = await snapshotPublicDir(dirs.publicDir, join(staging, ".public"));
    return { ...state, publicFiles, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/** A hard link to `original` at `linked`, or `original` itself where a link is not possible. */
const linkOrSelf = (original: string, linked: string): Promise<string> =>
  mkdir(dirname(linked), { recursive: true, mode: PRIVATE_DIRECTORY })
    .then(() => link(original, linked))
    .then(
      () => linked,
      () => original,
    );

/**
 * Every regular file of PUBLIC_DIR but those /storage/ never serves (hidden names, backslashes),
 * linked into `staging` and hashed; none when PUBLIC_DIR does not exist.
 */
async function snapshotPublicDir(publicDir: string, staging: string): Promise<PublicFile[]> {
  if (!existsSync(publicDir)) return [];
  const files: PublicFile[] = [];
  for (const entry of await readdir(publicDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const original = join(entry.parentPath, entry.name);
    const key = relative(publicDir, original);
    // Names /storage/ never serves (and a restore would refuse as an entry).
    if (key.split("/").some((part) => part.startsWith(".") || part.includes("\\"))) continue;
    const path = await linkOrSelf(original, join(staging, key));
    files.push({ key, path, ...(await digestOf(path)) });
  }
  return files.sort((a, b) => a.key.localeCompare(b.key));
}

/** Size and SHA-256 of a file, read in chunks (an image may be large). */
async function digestOf(path: string): Promise<{ size: number; sha256: string }> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    return { size, sha256: await hashFile(handle, size) };
  } finally {
    await handle.close();
  }
}
