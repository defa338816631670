import { mkdirSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { NotFound } from "../errors.ts";
import { PRIVATE_DIRECTORY, PRIVATE_FILE } from "../file-modes.ts";
import { hashFile, writeStream } from "./disk-io.ts";
import type { StoredFile } from "./received-file.ts";
import type { StagedChunk, UploadStaging } from "./staging.ts";

/** What staging uses of the disk store it lives in (releases.ts). */
interface DiskStore {
  readonly root: string;
  place(from: string, key: string): Promise<void>;
  failure(error: unknown, step: string, path: string, fields?: Record<string, unknown>): Error;
}

/**
 * Resumable uploads on local disk: one file per upload in STORAGE_DIR/.uploads, and each request
 * writes its bytes at its offset. Nothing ever needs dropping: bytes past the committed offset (from
 * a request that failed its checksum) are overwritten by the next request, or cut off when the
 * upload finishes. A request that breaks off keeps whatever reached the disk.
 *
 * Two requests for the same offset (a client resuming while its old request is still being read)
 * write the same bytes. A client that sent different bytes for one offset at once would damage only
 * its own upload, and the digest computed from the disk at the end says which bytes were kept.
 * Finishing reads the file back to hash it, as a one-request upload does to verify, and renames it
 * into place.
 */
export class DiskUploadStaging implements UploadStaging {
  readonly #root: string;

  constructor(private readonly store: DiskStore) {
    this.#root = join(store.root, ".uploads");
    mkdirSync(this.#root, { recursive: true, mode: PRIVATE_DIRECTORY });
  }

  #path(id: string): string {
    return join(this.#root, id);
  }

  async create(id: string): Promise<void> {
    const path = this.#path(id);
    const file = await open(path, "wx", PRIVATE_FILE).catch((error: unknown) => {
      throw this.store.failure(error, "create", path);
    });
    await file.close();
  }

  async write(
    id: string,
    offset: number,
    source: AsyncIterable<Uint8Array>,
    options: { limit: number; hash: boolean },
  ): Promise<StagedChunk> {
    const path = this.#path(id);
    const file = await this.#open(path);
    try {
      const hash = options.hash ? new Bun.CryptoHasher("sha256") : null;
      const written = await writeStream(file, source, offset, {
        limit: options.limit,
        hash,
        fail: (error) => this.store.failure(error, "write", path),
      });
      // Committed bytes must survive a crash: the offset the client is told is the offset on disk.
      await file.datasync().catch((error: unknown) => {
        throw this.store.failure(error, "sync", path);
      });
      return {
        size: written.size,
        piece: null,
        sha256: hash?.digest("hex") ?? null,
        complete: written.sourceError === null,
      };
    } finally {
      await file.close().catch(() => {});
    }
  }

  /**
   * The upload's staged file. Gone (an installation restored from a backup, which holds published
   * releases only, or a STORAGE_DIR not shared with the instance that started it), the upload is too.
   */
  #open(path: string) {
    return open(path, "r+").catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFound("Upload");
      throw this.store.failure(error, "open", path);
    });
  }

  async drop(): Promise<void> {}

  async finish(id: string, _pieces: string[], size: number, key: string): Promise<StoredFile> {
    const path = this.#path(id);
    const file = await this.#open(path);
    let sha256: string;
    try {
      const stored = (await file.stat()).size;
      if (stored < size) {
        const problem = Object.assign(new Error("the staged file is shorter than its offset"), {
          code: "EIO",
        });
        throw this.store.failure(problem, "finish", path, { expected_size: size, stored_size: stored });
      }
      if (stored > size) await file.truncate(size);
      await file.sync();
      sha256 = await hashFile(file, size);
    } finally {
      await file.close().catch(() => {});
    }
    await this.store.place(path, key);
    return { key, size, sha256 };
  }

  remove(id: string): Promise<void> {
    return rm(this.#path(id), { force: true });
  }
}
