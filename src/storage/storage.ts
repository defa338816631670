import { AppError } from "../errors.ts";
import type { ReceivedFile } from "./received-file.ts";
import type { UploadStaging } from "./staging.ts";

/** A release file as a response body: a file Bun can sendfile, or a stream. */
export type FileBody = Blob | ReadableStream<Uint8Array>;

/** A byte range of a stored file, both ends included. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What a crash left behind and a sweep removed. */
export interface SweepResult {
  /** Temporary files of uploads that never finished (a crash mid-upload). */
  temporary: number;
  /** Release files no version points at (a crash between storing the file and the commit). */
  orphans: number;
}

/**
 * Where release files live: local disk (STORAGE_DIR, the default) or an S3-compatible bucket
 * (STORAGE_URL). Publishing receives a file under a key chosen beforehand; the received file is kept
 * only once the request is valid, and removes itself otherwise (ReceivedFile). No version row is
 * written before the file is complete, and a failed publish leaves nothing behind.
 */
export interface ReleaseStorage {
  /** What the logs and the README call this store: `disk` or `s3`. */
  readonly kind: "disk" | "s3";
  /** Where resumable uploads collect their bytes until they are finished. */
  readonly staging: UploadStaging;
  /**
   * Streams `source` to the store under `key` while hashing and counting it, with bounded memory.
   * Past `maxBytes` a 413; the store failing a 507 (disk) or a 503 (object store unreachable or
   * refusing us). On any failure nothing of the file is left.
   */
  receive(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
    key: string,
  ): Promise<ReceivedFile>;
  /** The size of the file kept at `key`, or null when there is none. */
  size(key: string): Promise<number | null>;
  /**
   * Bytes the store can still take, as far as it knows: the free space of STORAGE_DIR's file system
   * for this user; null for object storage, which reports none.
   */
  freeBytes(): Promise<number | null>;
  /**
   * The file's bytes, all or one range. `plainStream` asks for a stream even where the store could
   * hand Bun a file: Bun.serve answers Range by itself for a file body, and a Range the caller chose
   * to ignore must stay ignored (file-response.ts).
   */
  body(key: string, range: ByteRange | null, options: { plainStream: boolean }): FileBody;
  /**
   * A URL the client may fetch the file from directly for a short while, or null when this store has
   * none (local disk): then depot streams the file itself.
   */
  presignedUrl(key: string, headers: { contentDisposition: string; contentType: string }): string | null;
  remove(key: string): Promise<void>;
  /**
   * Removes what a crash can leave: temporary files and kept files no version points at (`kept`
   * tells which keys one does), older than LEFTOVER_AGE_MS so that uploads in flight are left alone.
   */
  sweepLeftovers(kept: (keys: string[]) => Promise<Set<string>>, now?: number): Promise<SweepResult>;
}

/** 503: the object store cannot be reached or refuses our credentials; nothing was stored. */
export class StoreUnavailable extends AppError {
  constructor() {
    super(503, "The release store is unavailable. Try again later.");
  }
}

/** 507: the release could not be stored (RFC 4918: the server cannot store what the request needs). */
export class InsufficientStorage extends AppError {
  constructor(message: string) {
    super(507, message);
  }
}

const FULL = new Set(["ENOSPC", "EDQUOT"]);

/** What the client is told when the release store fails: a full disk, or another storage failure. */
export function storageFailure(error: unknown): InsufficientStorage {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return new InsufficientStorage(
    code !== undefined && FULL.has(code)
      ? "There is not enough storage space left for this file."
      : "The file could not be stored.",
  );
}

export const newStorageKey = (productId: number) => `products/${productId}/${crypto.randomUUID()}`;
