import type { S3Client } from "bun";
import { AppError } from "../errors.ts";
import type { StoredFile } from "./received-file.ts";
import type { StagedChunk, UploadStaging } from "./staging.ts";
import { type FileBody, StoreUnavailable } from "./storage.ts";

/** What staging uses of the bucket's store it lives in (s3.ts). */
interface BucketStore {
  put(source: AsyncIterable<Uint8Array>, maxBytes: number, key: string): Promise<StoredFile>;
  body(key: string, range: null): FileBody;
  remove(key: string): Promise<void>;
}

/**
 * Resumable uploads in the bucket: each request's bytes become one object (a piece) under
 * `.uploads/<id>/`, named by its offset and a random suffix so that two requests racing for one
 * offset never overwrite each other; the upload's row lists the committed pieces in order. A request
 * that breaks off stores nothing (an object cannot be appended to), so the client resumes from the
 * last whole request. Finishing streams the pieces, in order, into the final object — hashed and
 * counted on the way as any upload — and deletes them.
 */
export class S3UploadStaging implements UploadStaging {
  constructor(
    private readonly store: BucketStore,
    private readonly client: S3Client,
    private readonly prefix: string,
  ) {}

  #area(id: string): string {
    return `.uploads/${id}/`;
  }

  async create(): Promise<void> {}

  async write(
    id: string,
    offset: number,
    source: AsyncIterable<Uint8Array>,
    options: { limit: number },
  ): Promise<StagedChunk> {
    const piece = `${this.#area(id)}${String(offset).padStart(16, "0")}-${crypto.randomUUID()}`;
    try {
      const stored = await this.store.put(source, options.limit, piece);
      return { size: stored.size, piece, sha256: stored.sha256, complete: true };
    } catch (error) {
      // The store's refusals (413, 503) are the client's answer; a body that broke off is a chunk of nothing.
      if (error instanceof AppError) throw error;
      return { size: 0, piece: null, sha256: null, complete: false };
    }
  }

  async drop(chunk: StagedChunk): Promise<void> {
    if (chunk.piece !== null) await this.store.remove(chunk.piece).catch(() => {});
  }

  async finish(id: string, pieces: string[], size: number, key: string): Promise<StoredFile> {
    const store = this.store;
    async function* joined() {
      for (const piece of pieces) yield* store.body(piece, null) as ReadableStream<Uint8Array>;
    }
    const file = await store.put(joined(), size, key);
    if (file.size !== size) {
      await store.remove(key);
      throw new StoreUnavailable();
    }
    await this.remove(id).catch(() => {}); // what is left is removed with the upload's row
    return file;
  }

  async remove(id: string): Promise<void> {
    const prefix = `${this.prefix}${this.#area(id)}`;
    let continuationToken: string | undefined;
    do {
      const page = await this.client.list({ prefix, continuationToken });
      for (const entry of page.contents ?? []) await this.store.remove(entry.key.slice(this.prefix.length));
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
  }
}
