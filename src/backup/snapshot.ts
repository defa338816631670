import { existsSync, statSync } from "node:fs";
import { link, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { BackupFailed } from "./errors.ts";
import { appliedMigrations, countRows, type Manifest, queryOn } from "./manifest.ts";

/** A release file the snapshot's versions name, and where to read it from. */
export interface SnapshotFile {
  key: string;
  size: number;
  sha256: string;
  versionId: number;
  /** A hard link taken at the snapshot (a deletion afterwards cannot take it away), or the file itself. */
  path: string;
}

export interface Snapshot {
  dump: Uint8Array;
  migrations: Manifest["migrations"];
  tables: Record<string, number>;
  files: SnapshotFile[];
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
export async function takeSnapshot(pglite: PGlite, storageDir: string): Promise<Snapshot> {
  const staging = join(storageDir, `.backup-${crypto.randomUUID()}`);
  const release = () => rm(staging, { recursive: true, force: true });
  try {
    return await pglite.transaction(async (tx) => {
      // The database first; the files are the ones its versions name.
      const dump = new Uint8Array(await (await pglite.dumpDataDir("none")).arrayBuffer());
      const query = queryOn(tx);
      const migrations = await appliedMigrations(query);
      const tables = await countRows(query);
      const versions = await query<{ id: number; storage_key: string; sha256: string; file_size: string }>(
        "SELECT id, storage_key, sha256, file_size::text AS file_size FROM versions ORDER BY id",
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
        const linked = join(staging, version.storage_key);
        const path = await mkdir(dirname(linked), { recursive: true })
          .then(() => link(original, linked))
          .then(
            () => linked,
            () => original,
          );
        files.push({ key: version.storage_key, size, sha256: version.sha256, versionId: version.id, path });
      }
      return { dump, migrations, tables, files, release };
    });
  } catch (error) {
    await release();
    throw error;
  }
}
