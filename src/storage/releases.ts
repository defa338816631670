import { mkdirSync } from "node:fs";
import { type FileHandle, open, rename, rm, stat, statfs } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PayloadTooLarge } from "../errors.ts";
import { PRIVATE_DIRECTORY, PRIVATE_FILE } from "../file-modes.ts";
import type { Logger } from "../log.ts";
import { storageFailure } from "./failures.ts";
import { sweepDiskLeftovers } from "./leftovers.ts";
import { DiskUploadStaging } from "./staging-disk.ts";
import type { ByteRange, FileBody, ReceivedFile, ReleaseStorage, SweepResult } from "./storage.ts";

/** Bytes written but not yet on their way to disk, at most: bounds memory per upload. */
const WRITE_WINDOW = 8 * 1024 * 1024;
/** A background datasync every this many bytes, so the closing fsync has little left to do. */
const SYNC_EVERY = 64 * 1024 * 1024;
/** Read size when the written file is hashed again. */
const VERIFY_CHUNK = 1024 * 1024;

/** A file received into a temporary place on disk, not yet kept. */
interface ReceivedDiskFile extends ReceivedFile {
  tempPath: string;
}

/**
 * Release files on local disk under STORAGE_DIR. A file arrives in `.incoming/` while it is hashed and
 * counted, is fsynced and read back, and only then renamed to its key: a reader never sees half a
 * file, and a crash leaves at most an orphan in `.incoming/` (swept by `sweepLeftovers`).
 */
export class ReleaseStore implements ReleaseStorage {
  readonly kind = "disk";
  readonly incoming: string;
  readonly staging: DiskUploadStaging;

  constructor(
    readonly root: string,
    private readonly log: Logger,
  ) {
    this.incoming = join(root, ".incoming");
    mkdirSync(this.incoming, { recursive: true, mode: PRIVATE_DIRECTORY });
    this.staging = new DiskUploadStaging(this);
  }

  /**
   * Streams `source` to a temporary file while hashing it. Writes go to their offsets without waiting
   * for each other, with at most WRITE_WINDOW bytes in flight, so memory stays flat whatever the size
   * while the disk works alongside the upload; every SYNC_EVERY bytes a background datasync keeps the
   * final fsync short. Every write is checked for what it wrote; after the fsync the file's size and
   * its digest read back from disk must match what arrived. Past `maxBytes`, or if the source, a
   * write or the check fails, the temporary file is removed and the error thrown (a full disk as a 507).
   */
  async receive(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
    key: string,
  ): Promise<ReceivedDiskFile> {
    const tempPath = join(this.incoming, crypto.randomUUID());
    const file = await open(tempPath, "wx+", PRIVATE_FILE).catch((error: unknown) => {
      throw this.failure(error, "create", tempPath);
    });
    const hash = new Bun.CryptoHasher("sha256");
    try {
      const written = await writeStream(file, source, 0, {
        limit: maxBytes,
        hash,
        fail: (error) => this.failure(error, "write", tempPath),
      });
      if (written.sourceError !== null) throw written.sourceError;
      const sha256 = hash.digest("hex");
      await file.sync().catch((error: unknown) => {
        throw this.failure(error, "sync", tempPath);
      });
      await this.#verify(file, tempPath, written.size, sha256);
      await file.close();
      return { key, tempPath, size: written.size, sha256 };
    } catch (error) {
      await file.close().catch(() => {});
      await rm(tempPath, { force: true });
      throw error;
    }
  }

  /**
   * The file on disk must be exactly what arrived: its size, and its digest read back. A write that
   * reported success for fewer bytes, or any other way the bytes went astray, stops here, before a
   * version row could point at the file.
   */
  async #verify(file: FileHandle, path: string, size: number, sha256: string): Promise<void> {
    const stored = await file.stat();
    const readBack = await hashFile(file, stored.size);
    if (stored.size !== size || readBack !== sha256) {
      const problem = Object.assign(new Error("the stored file differs from the upload"), { code: "EIO" });
      throw this.failure(problem, "verify", path, { expected_size: size, stored_size: stored.size });
    }
  }

  /** Moves a received file to its key (atomic rename within the same file system) and syncs the directory. */
  keep(file: ReceivedFile): Promise<void> {
    return this.place(tempPathOf(file), file.key);
  }

  /** Renames the complete file at `from` to `key`'s path (atomic within one file system) and syncs the directory. */
  async place(from: string, key: string): Promise<void> {
    const target = this.path(key);
    try {
      mkdirSync(dirname(target), { recursive: true, mode: PRIVATE_DIRECTORY });
      await rename(from, target);
      const directory = await open(dirname(target), "r");
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch (error) {
      await rm(target, { force: true });
      throw this.failure(error, "keep", target);
    }
  }

  /** Removes the temporary file; once kept there is none, and the kept file stays. */
  discard(file: ReceivedFile | null): Promise<void> {
    return file ? rm(tempPathOf(file), { force: true }) : Promise.resolve();
  }

  path(key: string): string {
    return join(this.root, key);
  }

  /** The size of the file kept at `key`, or null when there is none (deleted, or another instance's disk). */
  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.path(key))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  /**
   * Blocks available to unprivileged users (not those reserved for root) times their size; null when
   * the file system cannot say (writing there then fails with its own 507).
   */
  async freeBytes(): Promise<number | null> {
    try {
      const { bavail, bsize } = await statfs(this.root);
      return bavail * bsize;
    } catch {
      return null;
    }
  }

  /**
   * A `Bun.file` (or a slice of it), so Bun.serve can use sendfile. A whole file answering a request
   * whose Range was ignored goes as a plain stream (`plainStream`): Bun.serve would otherwise answer
   * the Range of a file body by itself.
   */
  body(key: string, range: ByteRange | null, options: { plainStream: boolean }): FileBody {
    const whole = Bun.file(this.path(key));
    if (range) return whole.slice(range.start, range.end + 1);
    return options.plainStream ? whole.stream() : whole;
  }

  /** Local files have no URL of their own: depot streams them. */
  presignedUrl(): null {
    return null;
  }

  remove(key: string): Promise<void> {
    return rm(this.path(key), { force: true });
  }

  sweepLeftovers(kept: (keys: string[]) => Promise<Set<string>>, now = Date.now()): Promise<SweepResult> {
    return sweepDiskLeftovers(this, kept, now);
  }

  /** Logs a storage failure at `error` (an operator must act) and turns it into the client's 507. */
  failure(error: unknown, step: string, path: string, fields: Record<string, unknown> = {}) {
    this.log.error("release storage failed", {
      step,
      path,
      code: (error as NodeJS.ErrnoException | null)?.code,
      error: error instanceof Error ? error.message : String(error),
      ...fields,
    });
    return storageFailure(error);
  }
}

function tempPathOf(file: ReceivedFile): string {
  const { tempPath } = file as Partial<ReceivedDiskFile>;
  if (tempPath === undefined) throw new Error("not a file received by the disk store");
  return tempPath;
}

/** What `writeStream` wrote. */
export interface StreamWritten {
  /** Bytes written from the start offset on. */
  size: number;
  /** What the source failed with (a client gone mid-request), or null: `size` bytes arrived before it. */
  sourceError: unknown;
}

/**
 * Streams `source` into `file` from byte `start` on, hashing what arrives into `hash` if given. Writes
 * go to their offsets without waiting for each other, with at most WRITE_WINDOW bytes in flight, so
 * memory stays flat whatever the size while the disk works alongside the network; every SYNC_EVERY
 * bytes a background datasync keeps the caller's final sync short. More than `limit` bytes is a 413;
 * a failed write is thrown as `fail` makes it. A source that breaks off is not thrown but reported,
 * with what was written before it, so that a resumable upload can keep it.
 */
export async function writeStream(
  file: FileHandle,
  source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  start: number,
  options: { limit: number; hash: Bun.CryptoHasher | null; fail: (error: unknown) => Error },
): Promise<StreamWritten> {
  const writes = new Set<Promise<void>>();
  let failure: unknown = null;
  let sourceError: unknown = null;
  let inFlight = 0;
  let size = 0;
  let unsynced = 0;
  try {
    for await (const chunk of source) {
      if (failure) break;
      const offset = start + size;
      size += chunk.byteLength;
      if (size > options.limit) {
        failure = new PayloadTooLarge(`The file may not be greater than ${options.limit} bytes.`);
        break;
      }
      options.hash?.update(chunk);
      inFlight += chunk.byteLength;
      const write: Promise<void> = writeAll(file, chunk, offset).then(
        () => {
          inFlight -= chunk.byteLength;
          writes.delete(write);
        },
        (error: unknown) => {
          failure ??= options.fail(error);
          writes.delete(write);
        },
      );
      writes.add(write);
      while (inFlight > WRITE_WINDOW && writes.size > 0 && !failure) await Promise.race(writes);
      unsynced += chunk.byteLength;
      if (unsynced >= SYNC_EVERY) {
        unsynced = 0;
        void file.datasync().catch(() => {}); // the caller's final sync is the one that must succeed
      }
    }
  } catch (error) {
    sourceError = error;
  }
  await Promise.all(writes);
  if (failure) throw failure;
  return { size, sourceError };
}

/** Hex SHA-256 of the first `size` bytes of `file`, read back from disk. */
export async function hashFile(file: FileHandle, size: number): Promise<string> {
  const hash = new Bun.CryptoHasher("sha256");
  const buffer = Buffer.allocUnsafe(Math.min(VERIFY_CHUNK, Math.max(size, 1)));
  for (let position = 0; position < size; ) {
    const { bytesRead } = await file.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest("hex");
}

/** Writes all of `chunk` at `offset`: a short write continues where it stopped; one that writes nothing fails. */
async function writeAll(file: FileHandle, chunk: Uint8Array, offset: number): Promise<void> {
  let done = 0;
  while (done < chunk.byteLength) {
    const { bytesWritten } = await file.write(chunk, done, chunk.byteLength - done, offset + done);
    if (bytesWritten <= 0) throw Object.assign(new Error("no bytes written"), { code: "ENOSPC" });
    done += bytesWritten;
  }
}
