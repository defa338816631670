import { mkdirSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PayloadTooLarge } from "../http/errors.ts";

/** Bytes written but not yet on their way to disk, at most: bounds memory per upload. */
const WRITE_WINDOW = 8 * 1024 * 1024;
/** A background datasync every this many bytes, so the closing fsync has little left to do. */
const SYNC_EVERY = 64 * 1024 * 1024;

/** A file received into a temporary place, not yet kept. */
export interface ReceivedFile {
  tempPath: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

/**
 * Release files on local disk under STORAGE_DIR. A file arrives in `.incoming/` while it is hashed and
 * counted, is fsynced, and only then renamed to its key: a reader never sees half a file, and a crash
 * leaves at most an orphan in `.incoming/`.
 */
export class ReleaseStore {
  readonly #incoming: string;

  constructor(readonly root: string) {
    this.#incoming = join(root, ".incoming");
    mkdirSync(this.#incoming, { recursive: true });
  }

  /**
   * Streams `source` to a temporary file while hashing it. Writes go to their offsets without waiting
   * for each other, with at most WRITE_WINDOW bytes in flight, so memory stays flat whatever the size
   * while the disk works alongside the upload; every SYNC_EVERY bytes a background datasync keeps the
   * final fsync short. Past `maxBytes` (or if the source or a write fails) the temporary file is
   * removed and the error thrown.
   */
  async receive(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
  ): Promise<ReceivedFile> {
    const tempPath = join(this.#incoming, crypto.randomUUID());
    const file = await open(tempPath, "wx");
    const hash = new Bun.CryptoHasher("sha256");
    const writes = new Set<Promise<void>>();
    let failure: unknown = null;
    let inFlight = 0;
    let size = 0;
    let unsynced = 0;
    try {
      for await (const chunk of source) {
        if (failure) throw failure;
        const offset = size;
        size += chunk.byteLength;
        if (size > maxBytes) throw new PayloadTooLarge(`The file may not be greater than ${maxBytes} bytes.`);
        hash.update(chunk);
        inFlight += chunk.byteLength;
        const write: Promise<void> = file.write(chunk, 0, chunk.byteLength, offset).then(
          () => {
            inFlight -= chunk.byteLength;
            writes.delete(write);
          },
          (error: unknown) => {
            failure ??= error;
            writes.delete(write);
          },
        );
        writes.add(write);
        while (inFlight > WRITE_WINDOW && writes.size > 0 && !failure) await Promise.race(writes);
        unsynced += chunk.byteLength;
        if (unsynced >= SYNC_EVERY) {
          unsynced = 0;
          void file.datasync().catch(() => {}); // the final sync below is the one that must succeed
        }
      }
      await Promise.all(writes);
      if (failure) throw failure;
      await file.sync();
    } catch (error) {
      await Promise.allSettled(writes);
      await file.close().catch(() => {});
      await rm(tempPath, { force: true });
      throw error;
    }
    await file.close();
    return { tempPath, size, sha256: hash.digest("hex") };
  }

  /** Moves a received file to `key` (atomic rename within the same file system) and syncs the directory. */
  async keep(file: ReceivedFile, key: string): Promise<void> {
    const target = this.path(key);
    mkdirSync(dirname(target), { recursive: true });
    await rename(file.tempPath, target);
    const directory = await open(dirname(target), "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  }

  discard(file: ReceivedFile | null): Promise<void> {
    return file ? rm(file.tempPath, { force: true }) : Promise.resolve();
  }

  path(key: string): string {
    return join(this.root, key);
  }

  remove(key: string): Promise<void> {
    return rm(this.path(key), { force: true });
  }
}
