// A small tus 1.0.0 client for depot's /api/uploads (docs/vendors.md, Resumable uploads): create the upload,
// send the file in chunks, and when a chunk fails on the way (the network, or a 5xx while depot
// restarts) ask the server how much it kept (HEAD) and go on from there, so nothing saved is sent again.
import { ApiError, currentCsrfToken, NetworkError, readJson, refusalOf } from "../api.ts";

const TUS = { "tus-resumable": "1.0.0" };
const ENDPOINT = "/api/uploads";
/** Big enough to keep the requests few, small enough that a progress bar moves and a retry costs little. */
export const CHUNK_BYTES = 2 * 1024 * 1024;

export interface TusOptions {
  /** Bytes the server has, after each chunk. */
  onProgress?: (offset: number, size: number) => void;
  chunkBytes?: number;
  /** Failed requests in a row before giving up. */
  retries?: number;
  /** The first wait before a retry; each further one waits longer. */
  retryDelayMs?: number;
}

/** The upload was cancelled by the reader (it is deleted on the server). */
export class UploadCancelled extends Error {
  constructor() {
    super("The upload was cancelled.");
    this.name = "UploadCancelled";
  }
}

/** One file on its way up; `done` resolves to the upload's id, which the publish request names. */
export class TusUpload {
  readonly done: Promise<string>;
  readonly #controller = new AbortController();
  #url: string | null = null;

  constructor(
    readonly file: File,
    private readonly options: TusOptions = {},
  ) {
    this.done = this.#run();
  }

  /** Stops sending and deletes what the server kept; `done` rejects with UploadCancelled. */
  async cancel(): Promise<void> {
    this.#controller.abort();
    if (this.#url === null) return;
    // Best effort: an upload left behind expires on its own (UPLOAD_EXPIRY_HOURS).
    await fetch(this.#url, { method: "DELETE", headers: headers() }).catch(() => undefined);
  }

  async #run(): Promise<string> {
    const { file } = this;
    const created = await this.#send(ENDPOINT, {
      method: "POST",
      headers: headers({
        "upload-length": String(file.size),
        "upload-metadata": `filename ${base64(file.name)},filetype ${base64(file.type || "application/octet-stream")}`,
      }),
    });
    if (created.status !== 201) throw await refused(created);
    const location = created.headers.get("location");
    if (!location) throw new ApiError(created.status, "depot did not say where the upload is.");
    // Relative to the URL posted to (README): resolved here, then always used as is.
    this.#url = new URL(location, new URL(ENDPOINT, window.location.href)).pathname;
    const id = this.#url.split("/").pop() ?? "";

    const chunk = this.options.chunkBytes ?? CHUNK_BYTES;
    const retries = this.options.retries ?? 5;
    let offset = Number(created.headers.get("upload-offset") ?? 0);
    let failures = 0;
    this.options.onProgress?.(offset, file.size);
    while (offset < file.size) {
      let response: Response | null;
      try {
        response = await this.#send(this.#url, {
          method: "PATCH",
          headers: headers({
            "content-type": "application/offset+octet-stream",
            "upload-offset": String(offset),
          }),
          body: file.slice(offset, offset + chunk),
        });
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        response = null;
      }
      if (response?.status === 204) {
        offset = Number(response.headers.get("upload-offset"));
        failures = 0;
        this.options.onProgress?.(offset, file.size);
        continue;
      }
      // 409: our offset was not the server's; it says which one is.
      if (response?.status === 409 && response.headers.has("upload-offset")) {
        offset = Number(response.headers.get("upload-offset"));
        continue;
      }
      if (response !== null && response.status < 500) throw await refused(response);
      if (++failures > retries) throw response ? await refused(response) : new NetworkError();
      offset = await this.#resumeOffset(failures, retries);
      this.options.onProgress?.(offset, file.size);
    }
    return id;
  }

  /** After a failed chunk: waits, then asks the server how many bytes it has (HEAD), retrying that too. */
  async #resumeOffset(failures: number, retries: number): Promise<number> {
    const url = this.#url ?? ENDPOINT;
    for (let attempt = failures; ; attempt++) {
      await this.#wait((this.options.retryDelayMs ?? 1000) * attempt);
      try {
        const response = await this.#send(url, { method: "HEAD", headers: headers() });
        if (response.ok) return Number(response.headers.get("upload-offset"));
        // 404 or 410: the upload is gone (expired, or deleted elsewhere); nothing to resume.
        if (response.status < 500) throw await refused(response);
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
      }
      if (attempt >= retries) throw new NetworkError();
    }
  }

  /** fetch, with a cancelled upload and a failed connection told apart. */
  async #send(url: string, init: RequestInit): Promise<Response> {
    if (this.#controller.signal.aborted) throw new UploadCancelled();
    try {
      return await fetch(url, { ...init, credentials: "same-origin", signal: this.#controller.signal });
    } catch {
      if (this.#controller.signal.aborted) throw new UploadCancelled();
      throw new NetworkError();
    }
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const signal = this.#controller.signal;
      const timer = setTimeout(resolve, ms);
      signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          reject(new UploadCancelled());
        },
        { once: true },
      );
    });
  }
}

/** tus's headers and the session's CSRF token (every tus request but HEAD changes something). */
function headers(more: Record<string, string> = {}): Record<string, string> {
  const token = currentCsrfToken();
  return { ...TUS, ...(token ? { "x-csrf-token": token } : {}), ...more };
}

async function refused(response: Response): Promise<ApiError> {
  return refusalOf(response, await readJson(response));
}

/** Upload-Metadata values are base64 of UTF-8 (a file name may be "Überplugin ✓.zip"). */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
