import type { Progress } from "../progress.ts";
import { type DepotClient, readJson } from "./depot-client.ts";
import { Refused } from "./failures.ts";
import { IDLE_TIMEOUT_MS, IdleTimer } from "./idle-timer.ts";
import { Retryable, retryNotice, withRetries } from "./retry.ts";

const TUS = { "tus-resumable": "1.0.0" };
const CHUNK_TYPE = "application/offset+octet-stream";
/** A tus answer that is worth sending the same bytes again: 460, the chunk arrived damaged. */
const CHECKSUM_MISMATCH = 460;
/** Bytes per request: what a dropped connection can cost at most on object storage, and few round trips. */
export const DEFAULT_CHUNK_BYTES = 64 * 1024 * 1024;

/** The file to upload, as the server's metadata will name it. */
export interface LocalFile {
  path: string;
  size: number;
  name: string;
  type: string;
}

/**
 * Uploads `file` through the server's tus endpoint and returns the finished upload's id: created
 * once, then sent `chunkBytes` at a time, each request with the SHA-256 of its bytes (the server
 * answers 460 and keeps nothing when they arrive damaged). After a dropped connection or a 5xx the
 * upload asks the server how far it got (HEAD) and goes on from there, with the client's retry
 * policy: it gives up only after that many failures in a row without progress.
 */
export async function uploadFile(
  client: DepotClient,
  file: LocalFile,
  digests: FileDigests,
  options: { chunkBytes: number; progress: Progress },
): Promise<string> {
  const { progress } = options;
  const onRetry = (error: Retryable, delayMs: number, failures: number) =>
    progress.note(retryNotice(error, delayMs, failures, client.retry));
  const created = await client.request(
    "/api/uploads",
    {
      method: "POST",
      headers: {
        ...TUS,
        "upload-length": String(file.size),
        "upload-metadata": `filename ${base64(file.name)},filetype ${base64(file.type)}`,
      },
    },
    { onRetry, read: (response) => readJson<{ data: { id: string } }>(response) },
  );
  const path = `/api/uploads/${created.data.id}`;

  let offset = 0;
  let inSync = true;
  await withRetries(
    client.retry,
    async () => {
      const startedAt = offset;
      try {
        if (!inSync) {
          offset = await serverOffset(client, path);
          progress.restart(offset);
          inSync = true;
        }
        while (offset < file.size) {
          const end = Math.min(file.size, offset + options.chunkBytes);
          const checksum = `sha256 ${await digests.range(offset, end)}`;
          // A link that takes no byte for IDLE_TIMEOUT_MS is dropped and the upload resumed; once
          // the body is out, the server may take its time (the last request finishes the file).
          const idle = new IdleTimer(IDLE_TIMEOUT_MS);
          try {
            const response = await client.send(path, {
              method: "PATCH",
              headers: {
                ...TUS,
                "content-type": CHUNK_TYPE,
                "upload-offset": String(offset),
                "upload-checksum": checksum,
              },
              body: countedSlice(file.path, offset, end, progress, idle),
              signal: idle.signal,
            });
            offset = Number(response.headers.get("upload-offset"));
          } finally {
            idle.stop();
          }
        }
      } catch (error) {
        inSync = false;
        const moved = offset > startedAt;
        if (error instanceof Retryable) throw new Retryable(error.message, moved);
        // Damaged on the way, or another request moved the offset: ask again and go on.
        if (error instanceof Refused && (error.status === CHECKSUM_MISMATCH || error.status === 409)) {
          throw new Retryable(error.message, moved);
        }
        throw error;
      }
    },
    onRetry,
  );
  return created.data.id;
}

async function serverOffset(client: DepotClient, path: string): Promise<number> {
  const response = await client.send(path, { method: "HEAD", headers: TUS });
  const offset = Number(response.headers.get("upload-offset"));
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Refused(`${client.url(path)} answered HEAD without an Upload-Offset: is it a depot?`);
  }
  return offset;
}

/** The bytes [start, end) of the file as a request body that moves the progress bar as it is read. */
function countedSlice(
  path: string,
  start: number,
  end: number,
  progress: Progress,
  idle: IdleTimer,
): ReadableStream<Uint8Array> {
  const reader = Bun.file(path).slice(start, end).stream().getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        idle.stop();
        controller.close();
        return;
      }
      idle.touch();
      progress.advance(value.byteLength);
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/**
 * SHA-256 digests of a file read once, front to back, ahead of the upload while it goes on: of each
 * `chunkBytes` request as planned (base64, for Upload-Checksum) and of the whole file (hex, to compare
 * with what the server publishes). A request that starts elsewhere (a resume in the middle of a chunk)
 * gets its range read and hashed on its own.
 */
export class FileDigests {
  readonly whole: Promise<string>;
  readonly #planned = new Map<number, { end: number; digest: Promise<string> }>();

  constructor(
    private readonly path: string,
    size: number,
    chunkBytes: number,
  ) {
    const pending: PromiseWithResolvers<string>[] = [];
    for (let start = 0; start < size; start += chunkBytes) {
      const digest = Promise.withResolvers<string>();
      digest.promise.catch(() => {}); // awaited by `range`, which sees the failure
      this.#planned.set(start, { end: Math.min(size, start + chunkBytes), digest: digest.promise });
      pending.push(digest);
    }
    this.whole = this.#readAll(size, chunkBytes, pending).catch((error: unknown) => {
      for (const digest of pending) digest.reject(error);
      throw error;
    });
    this.whole.catch(() => {}); // surfaces where it is awaited
  }

  async range(start: number, end: number): Promise<string> {
    const planned = this.#planned.get(start);
    if (planned?.end === end) return planned.digest;
    return Buffer.from(await sha256Of(Bun.file(this.path).slice(start, end).stream())).toString("base64");
  }

  async #readAll(size: number, chunkBytes: number, pending: PromiseWithResolvers<string>[]): Promise<string> {
    const whole = new Bun.CryptoHasher("sha256");
    let chunk = new Bun.CryptoHasher("sha256");
    let inChunk = 0;
    let index = 0;
    let read = 0;
    for await (const bytes of Bun.file(this.path).stream()) {
      read += bytes.byteLength;
      whole.update(bytes);
      for (let at = 0; at < bytes.byteLength; ) {
        const take = Math.min(bytes.byteLength - at, chunkBytes - inChunk);
        chunk.update(bytes.subarray(at, at + take));
        at += take;
        inChunk += take;
        if (inChunk === chunkBytes) {
          pending[index++]?.resolve(chunk.digest("base64"));
          chunk = new Bun.CryptoHasher("sha256");
          inChunk = 0;
        }
      }
      // A turn of the event loop between reads: a file's stream reads resolve without one, so the
      // upload's requests (on this thread) would wait until the whole file had been hashed twice
      // (2.5 s per GiB before the first byte went out; bench/README.md, issue 14).
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (read !== size) throw new Refused(`${this.path} changed while it was being uploaded`);
    if (inChunk > 0) pending[index]?.resolve(chunk.digest("base64"));
    return whole.digest("hex");
  }
}

async function sha256Of(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const hash = new Bun.CryptoHasher("sha256");
  for await (const bytes of stream) hash.update(bytes);
  return hash.digest();
}
