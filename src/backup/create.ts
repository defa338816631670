import { accessSync, constants, createWriteStream, existsSync } from "node:fs";
import { open, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import type { Config } from "../config.ts";
import { controlSocketPath } from "../control/socket.ts";
import { openEmbedded } from "../db/client.ts";
import { isInitialised } from "../db/embedded-init.ts";
import { DataDirInUse } from "../db/embedded-lock.ts";
import { PRIVATE_FILE } from "../file-modes.ts";
import { Progress } from "../progress.ts";
import { archiveSnapshot, type BackupSummary } from "./archive.ts";
import { BackupFailed } from "./errors.ts";
import { takeSnapshot } from "./snapshot.ts";

export interface BackupResult extends Omit<BackupSummary, "tar_bytes"> {
  file: string;
  /** Size of the archive (gzip). */
  bytes: number;
}

/**
 * Writes a gzip'd tar of the embedded installation to `file`. With depot stopped this process takes
 * the data directory's lock and the snapshot itself; while `serve` runs (and holds the lock) the
 * running server takes it and streams the archive over its control socket in DATA_DIR. Either way
 * the snapshot is one consistent point (see takeSnapshot). The archive is written beside `file` and
 * renamed at the end: a failed backup leaves nothing.
 */
export async function createBackup(config: Config, file: string): Promise<BackupResult> {
  const target = resolve(file);
  try {
    accessSync(dirname(target), constants.W_OK);
  } catch (error) {
    throw new BackupFailed(`cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  if (!isInitialised(join(config.dataDir, "db")))
    throw new BackupFailed(`there is no embedded database in ${config.dataDir} to back up`);
  let database: Awaited<ReturnType<typeof openEmbedded>>;
  try {
    database = await openEmbedded(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirInUse) return backupThroughServer(config, error, target);
    throw error;
  }
  try {
    const pglite = database.pglite;
    if (!pglite) throw new Error("the embedded database has no PGlite handle");
    const snapshot = await takeSnapshot(pglite, config);
    try {
      const appKeyPath = join(config.dataDir, "app.key");
      const appKey = existsSync(appKeyPath) ? new Uint8Array(await Bun.file(appKeyPath).arrayBuffer()) : null;
      let progress: Progress | null = null;
      const { summary, tar } = archiveSnapshot(snapshot, appKey, (n) => progress?.advance(n));
      progress = new Progress("backup", summary.tar_bytes);
      await writeArchive(tar, target, progress);
      return result(summary, target);
    } finally {
      await snapshot.release();
    }
  } finally {
    await database.close();
  }
}

/** The running server takes the snapshot and sends the tar; this process compresses it into `target`. */
async function backupThroughServer(
  config: Config,
  inUse: DataDirInUse,
  target: string,
): Promise<BackupResult> {
  const socket = controlSocketPath(config.dataDir);
  const refused = (why: string) =>
    new BackupFailed(
      `the embedded database in ${config.dataDir} is in use by depot (pid ${inUse.pid}) and ${why}; ` +
        "stop it, run depot backup, then start it again (docs/operators.md: Backups)",
    );
  if (!existsSync(socket)) throw refused("it offers no control socket to take the backup through");
  const response = await fetch("http://depot/backup", { method: "POST", unix: socket }).catch(() => null);
  if (!response) throw refused("its control socket does not answer");
  if (response.status !== 200) {
    const message = await response
      .json()
      .then((body) => (body as { message?: string }).message)
      .catch(() => undefined);
    throw new BackupFailed(
      `the running depot (pid ${inUse.pid}) could not take the backup: ${message ?? response.status}`,
    );
  }
  const summary = JSON.parse(response.headers.get("x-depot-backup") ?? "null") as BackupSummary | null;
  if (!summary || !response.body) throw new BackupFailed("the running depot answered without a backup");
  const progress = new Progress("backup", summary.tar_bytes);
  const body = response.body as unknown as AsyncIterable<Uint8Array>;
  try {
    await writeArchive(counted(body, summary.tar_bytes, progress), target, progress);
  } catch (error) {
    if (error instanceof BackupFailed) throw error;
    throw new BackupFailed(
      `the running depot (pid ${inUse.pid}) stopped sending the backup (${(error as Error).message}; its log says why); nothing was written`,
    );
  }
  return result(summary, target);
}

/** Counts the streamed tar and insists on all of it: a server that stops early is no backup. */
async function* counted(source: AsyncIterable<Uint8Array>, expected: number, progress: Progress) {
  let received = 0;
  for await (const chunk of source) {
    received += chunk.byteLength;
    progress.advance(chunk.byteLength);
    yield chunk;
  }
  if (received !== expected) throw new Error(`${received} of ${expected} bytes arrived`);
}

/**
 * gzip's `tar` into `target`, through a partial file that is synced and renamed only when complete.
 * The archive holds app.key and the whole database: it is created 0600, never readable by others.
 */
async function writeArchive(tar: AsyncIterable<Uint8Array>, target: string, progress: Progress) {
  const partial = `${target}.partial-${process.pid}`;
  try {
    await pipeline(
      Readable.from(tar),
      createGzip(),
      createWriteStream(partial, { flags: "wx", mode: PRIVATE_FILE }),
    );
    progress.finish();
    const handle = await open(partial, "r+");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

async function result(summary: BackupSummary, target: string): Promise<BackupResult> {
  const { tar_bytes: _, ...rest } = summary;
  return { file: target, bytes: (await stat(target)).size, ...rest };
}
