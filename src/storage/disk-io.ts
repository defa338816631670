import type { FileHandle } from "node:fs/promises";
import { PayloadTooLarge } from "../errors.ts";

/** Bytes written but not yet on their way to disk, at most: bounds memory per upload. */
const WRITE_WINDOW = 8 * 1024 * 1024;
/** A background datasync every this many bytes, so the closing fsync has little left to do. */
const SYNC_EVERY = 64 * 1024 * 1024;
/** Read size when the written file is hashed again. */
const VERIFY_CHUNK = 1024 * 1024;

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
