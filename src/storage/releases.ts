import { mkdirSync } from "node:fs";
import { type FileHandle, open, rename, rm, stat, statfs } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PRIVATE_DIRECTORY, PRIVATE_FILE } from "../file-modes.ts";
import type { Logger } from "../log.ts";
import { hashFile, writeStream } from "./disk-io.ts";
import { sweepDiskLeftovers } from "./leftovers.ts";
import { ReceivedFile } from "./received-file.ts";
import { DiskUploadStaging } from "./staging-disk.ts";
import {
  type ByteRange,
  type FileBody,
  type ReleaseStorage,
  type SweepResult,
  storageFailure,
} from "./storage.ts";

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
   * Streams `source` to a temporary file while hashing it, with bounded memory (writeStream). After
   * the fsync the file's size and its digest read back from disk must match what arrived. Past
   * `maxBytes`, or if the source, a write or the check fails, the temporary file is removed and the
   * error thrown (a full disk as a 507). Kept, the file is renamed to its key.
   */
  async receive(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
    key: string,
  ): Promise<ReceivedFile> {
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
      return new ReceivedFile(key, written.size, sha256, {
        keep: () => this.place(tempPath, key),
        remove: (kept) => this.#removeQuietly(kept ? this.path(key) : tempPath),
      });
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

  /** A received file that was not wanted; should it stay, the leftovers sweep removes it later. */
  async #removeQuietly(path: string): Promise<void> {
    await rm(path, { force: true }).catch((error: unknown) => {
      this.log.warn("release file not removed", { path, error: (error as Error).message });
    });
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
