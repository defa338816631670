import type { S3Client, S3Options } from "bun";
import type { S3Settings } from "../config.ts";
import { PayloadTooLarge } from "../errors.ts";
import type { Logger } from "../log.ts";
import { KEPT_PREFIXES, LEFTOVER_AGE_MS, removeOrphans } from "./leftovers.ts";
import { ReceivedFile, type StoredFile } from "./received-file.ts";
import { S3UploadStaging } from "./staging-s3.ts";
import {
  type ByteRange,
  type FileBody,
  type ReleaseStorage,
  StoreUnavailable,
  type SweepResult,
} from "./storage.ts";

/**
 * Multipart part size (S3 allows 10,000 parts: 80 GB) and how many parts the client may send at once.
 * The client's `write` never waits: it buffers whatever it is given, so a client uploading faster
 * than the bucket takes it would grow memory by the difference (500 MiB for a 512 MiB upload to a
 * slow store). `put` therefore flushes every PART_SIZE bytes and waits for the previous flush
 * before the next: at most about three parts of an upload are in memory, whatever the file's size.
 */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;
/** How long a redirect's presigned URL works: long enough to start the download, short enough not to share. */
export const PRESIGNED_SECONDS = 300;

/**
 * Release files in an S3-compatible bucket (STORAGE_URL), through Bun's built-in S3 client. A file is
 * uploaded straight to its key (multipart, hashed on the way): there is no rename in S3, and the object
 * only appears once the upload completes, so a version row never points at half a file. A failed or
 * refused upload deletes whatever was stored; a crash between the upload and the commit leaves an
 * orphan the hourly sweep removes.
 */
export class S3ReleaseStore implements ReleaseStorage {
  readonly kind = "s3";
  readonly #client: S3Client;
  /** Signs the redirects' URLs: #client, or a client with S3_PRESIGN_*'s read-only key. */
  readonly #presigner: S3Client;
  readonly #prefix: string;
  readonly staging: S3UploadStaging;

  constructor(
    settings: S3Settings,
    private readonly log: Logger,
  ) {
    const options: S3Options = { bucket: settings.bucket };
    if (settings.endpoint) options.endpoint = settings.endpoint;
    if (settings.region) options.region = settings.region;
    if (settings.accessKeyId) options.accessKeyId = settings.accessKeyId;
    if (settings.secretAccessKey) options.secretAccessKey = settings.secretAccessKey;
    if (settings.sessionToken) options.sessionToken = settings.sessionToken;
    this.#client = new Bun.S3Client(options);
    this.#presigner = settings.presign
      ? new Bun.S3Client({ ...options, ...settings.presign, sessionToken: undefined })
      : this.#client;
    this.#prefix = settings.prefix === "" ? "" : `${settings.prefix}/`;
    this.staging = new S3UploadStaging(this, this.#client, this.#prefix);
  }

  /**
   * Stores `source` at `key` (put). The object is in place as soon as it is stored, so keeping it has
   * nothing to do; removing it deletes it, kept or not.
   */
  async receive(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
    key: string,
  ): Promise<ReceivedFile> {
    const stored = await this.put(source, maxBytes, key);
    return new ReceivedFile(key, stored.size, stored.sha256, {
      keep: async () => {},
      remove: () => this.#delete(this.#object(key), "discard"),
    });
  }

  /**
   * Streams `source` into a multipart upload, awaiting the client whenever its parts queue is full, so
   * memory stays bounded. After the upload the object's size must be what arrived. Past `maxBytes` or
   * on any failure the object is deleted and the error thrown (the store's own failure as a 503).
   */
  async put(
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
    key: string,
  ): Promise<StoredFile> {
    const object = this.#object(key);
    const writer = this.#client.file(object).writer({ partSize: PART_SIZE, queueSize: QUEUE_SIZE, retry: 3 });
    const hash = new Bun.CryptoHasher("sha256");
    let size = 0;
    let unflushed = 0;
    let flushing: Promise<unknown> | null = null;
    let storing = false;
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > maxBytes) throw new PayloadTooLarge(`The file may not be greater than ${maxBytes} bytes.`);
        hash.update(chunk);
        storing = true;
        await writer.write(chunk);
        unflushed += chunk.byteLength;
        if (unflushed >= PART_SIZE) {
          // One flush on its way while the next part arrives: the upload overlaps the network, bounded.
          await flushing;
          flushing = Promise.resolve(writer.flush());
          flushing.catch(() => {}); // awaited above or below; its failure is thrown there
          unflushed = 0;
        }
        storing = false;
      }
      storing = true;
      await flushing;
      await writer.end();
      const stored = (await this.#client.stat(object)).size;
      if (stored !== size) {
        throw Object.assign(new Error(`the stored object has ${stored} bytes, ${size} arrived`), {
          code: "SizeMismatch",
        });
      }
      return { key, size, sha256: hash.digest("hex") };
    } catch (error) {
      // Bun's writer has no abort: ending it, even with an error, completes what was sent (parts
      // that S3 itself refused are aborted by Bun). The object therefore exists for a moment and is
      // deleted right after; a crash in between leaves an orphan for the hourly sweep.
      await Promise.resolve()
        .then(() => writer.end(error instanceof Error ? error : new Error(String(error))))
        .catch(() => {});
      await this.#delete(object, "discard");
      throw storing ? this.#failure(error, "upload", object) : error;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await this.#client.stat(this.#object(key))).size;
    } catch (error) {
      if (isMissing(error)) return null;
      throw this.#failure(error, "stat", this.#object(key));
    }
  }

  /** A bucket has no free space to ask about: its limits are the store's (and its bill). */
  async freeBytes(): Promise<null> {
    return null;
  }

  /** Always a stream: a ranged GET for a range. (An S3File itself as a body would make Bun redirect.) */
  body(key: string, range: ByteRange | null): FileBody {
    const file = this.#client.file(this.#object(key));
    return (range ? file.slice(range.start, range.end + 1) : file).stream();
  }

  /** A GET URL valid for PRESIGNED_SECONDS that answers with depot's own Content-Type and -Disposition. */
  presignedUrl(key: string, headers: { contentDisposition: string; contentType: string }): string {
    return this.#presigner.presign(this.#object(key), {
      method: "GET",
      expiresIn: PRESIGNED_SECONDS,
      contentDisposition: headers.contentDisposition,
      type: headers.contentType,
    });
  }

  async remove(key: string): Promise<void> {
    const object = this.#object(key);
    try {
      await this.#client.delete(object);
    } catch (error) {
      if (!isMissing(error)) throw this.#failure(error, "delete", object);
    }
  }

  /**
   * Objects under `products/` and `uploads/` older than LEFTOVER_AGE_MS that no version or upload
   * points at. Unfinished multipart uploads are not listed here: the bucket's lifecycle rule aborts
   * them (README).
   */
  async sweepLeftovers(
    kept: (keys: string[]) => Promise<Set<string>>,
    now = Date.now(),
  ): Promise<SweepResult> {
    const candidates: string[] = [];
    for (const kept of KEPT_PREFIXES) {
      let continuationToken: string | undefined;
      do {
        const page = await this.#client.list({ prefix: `${this.#prefix}${kept}/`, continuationToken });
        for (const entry of page.contents ?? []) {
          const modified = entry.lastModified ? Date.parse(String(entry.lastModified)) : now;
          if (now - modified > LEFTOVER_AGE_MS) candidates.push(entry.key.slice(this.#prefix.length));
        }
        continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
      } while (continuationToken);
    }
    const orphans = await removeOrphans(candidates, kept, (key) => this.remove(key));
    return { temporary: 0, orphans };
  }

  #object(key: string): string {
    return `${this.#prefix}${key}`;
  }

  /** Deletes a half-stored or refused object; a failure is logged (the sweep gets it later), not thrown. */
  async #delete(object: string, step: string): Promise<void> {
    await this.#client.delete(object).catch((error: unknown) => {
      if (!isMissing(error))
        this.log.warn("release object not deleted", { step, key: object, ...describe(error) });
    });
  }

  /** Logs an object store failure at `error` (an operator must act) and turns it into the client's 503. */
  #failure(error: unknown, step: string, object: string): StoreUnavailable {
    this.log.error("release storage failed", { step, store: "s3", key: object, ...describe(error) });
    return new StoreUnavailable();
  }
}

const isMissing = (error: unknown) => (error as { code?: string } | null)?.code === "NoSuchKey";

const describe = (error: unknown) => ({
  code: (error as { code?: string } | null)?.code,
  error: error instanceof Error ? error.message : String(error),
});
