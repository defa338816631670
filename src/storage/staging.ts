import type { StoredFile } from "./received-file.ts";

/** What one request's bytes became: stored, but part of the upload only once its offset is committed. */
export interface StagedChunk {
  /** Bytes stored, from the request's offset on. */
  size: number;
  /** The object holding them (object storage), or null where they were written in place (disk). */
  piece: string | null;
  /** Hex SHA-256 of these bytes, when asked for (the tus checksum extension), else null. */
  sha256: string | null;
  /** False when the request body broke off; `size` is what arrived before. */
  complete: boolean;
}

/**
 * Where the bytes of resumable uploads wait until the last one arrives (the tus endpoint, README:
 * Resumable uploads). Each request's bytes are stored first and counted only when the caller commits
 * their offset, so a request that loses a race or fails its checksum is dropped without touching what
 * was committed. Kept in the release store itself, so that another instance sharing it can continue
 * an upload this one started.
 */
export interface UploadStaging {
  create(id: string): Promise<void>;
  /**
   * Stores `source` as the upload's bytes from `offset` on. More than `limit` bytes is a 413 and
   * nothing counts; the store failing a 507 or 503. A source that breaks off keeps what arrived where
   * the store can (disk) and is otherwise a chunk of size 0.
   */
  write(
    id: string,
    offset: number,
    source: AsyncIterable<Uint8Array>,
    options: { limit: number; hash: boolean },
  ): Promise<StagedChunk>;
  /** Forgets a chunk that will not be committed. */
  drop(chunk: StagedChunk): Promise<void>;
  /**
   * Joins the committed bytes (`pieces` in order, on object storage) into one file of `size` bytes,
   * hashed, and keeps it at `key`; the staging area goes.
   */
  finish(id: string, pieces: string[], size: number, key: string): Promise<StoredFile>;
  remove(id: string): Promise<void>;
}

/** Where a finished upload's file is kept until a version takes it (and then still). */
export const uploadStorageKey = (id: string) => `uploads/${id}`;
