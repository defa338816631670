import { CODELESS, type Core } from "./core.js";
import { RefusedError, UnreachableError, UnverifiableError } from "./errors.js";
import type { Fetch } from "./http.js";
import { describeFailure, sleep } from "./http.js";
import { PartFile } from "./part-file.js";
import type { Artifact } from "./types.js";

export interface DownloadOptions {
  /** Called as bytes arrive: how many of the file are on disk, of how many. */
  onProgress?: (received: number, total: number) => void;
}

/** The artifact fields a download uses. */
export type Downloadable = Pick<Artifact, "file_name" | "file_size" | "download_url"> &
  Partial<Pick<Artifact, "sha256" | "sha512">>;

const MAX_REDIRECTS = 5;

const refuse = (message: string) => new UnverifiableError(message, "download");

/**
 * Streams `artifact` into `directory/<file_name>.part` (resuming a `.part` already there), checks its
 * sha512 and sha256, and only then renames it to `file_name`; returns that path. The name is the
 * artifact's, never a header's, and one that could land outside `directory` is refused first.
 */
export async function download(
  core: Core,
  key: string | null,
  artifact: Downloadable,
  directory: string,
  options: DownloadOptions,
): Promise<string> {
  const name = safeFileName(artifact.file_name);
  const size = artifact.file_size;
  if (!Number.isSafeInteger(size) || size < 0)
    throw refuse(`the artifact's file_size is not a size: ${size}`);
  if (!/^https?:\/\//.test(artifact.download_url)) throw refuse("the artifact's download_url is not http(s)");
  const expected = expectedDigests(artifact);
  const { join } = await import("node:path");
  const { mkdir, rename } = await import("node:fs/promises");
  await mkdir(directory, { recursive: true });
  const target = join(directory, name);
  const part = await PartFile.open(`${target}.part`, size, Object.keys(expected));
  try {
    await transferWithRetries(core, key, artifact.download_url, part, size, options);
    const actual = part.digests();
    for (const [algorithm, digest] of Object.entries(expected)) {
      if (actual[algorithm] !== digest) {
        await part.discard();
        throw refuse(
          `the downloaded file's ${algorithm} is ${actual[algorithm]}, the artifact says ${digest}: deleted ${part.path}`,
        );
      }
    }
  } finally {
    await part.close();
  }
  await rename(part.path, target);
  return target;
}

/** A bare file name: no separator or `:`, no `..` anywhere, no leading dot, no control character. */
function safeFileName(name: unknown): string {
  if (
    typeof name !== "string" ||
    name === "" ||
    name.startsWith(".") ||
    name.includes("..") ||
    /[/\\:]/.test(name) ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    /[\u0000-\u001f\u007f]/.test(name)
  ) {
    throw refuse(`refusing the artifact's file_name ${JSON.stringify(name)}: not a plain file name`);
  }
  return name;
}

function expectedDigests(artifact: Downloadable): Record<string, string> {
  const expected: Record<string, string> = {};
  if (typeof artifact.sha512 === "string") expected.sha512 = artifact.sha512;
  if (typeof artifact.sha256 === "string") expected.sha256 = artifact.sha256.toLowerCase();
  if (Object.keys(expected).length === 0) throw refuse("the artifact carries no sha512 or sha256 to check");
  return expected;
}

/** Attempts until the `.part` holds `size` bytes; a failed attempt that got bytes resumes without counting. */
async function transferWithRetries(
  core: Core,
  key: string | null,
  url: string,
  part: PartFile,
  size: number,
  options: DownloadOptions,
) {
  const { retries, maxRetryWaitMs } = core.settings.http;
  for (let failures = 0; part.size < size; ) {
    const before = part.size;
    try {
      await transfer(core, key, url, part, size, options);
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      failures = part.size > before ? 1 : failures + 1;
      if (failures > retries) throw new UnreachableError(`cannot download ${url}: ${error.message}`);
      await sleep(Math.min(maxRetryWaitMs, 250 * 2 ** (failures - 1) * (0.8 + Math.random() * 0.4)));
    }
  }
}

/** A transfer that broke off (no connection, a 5xx, no byte for `timeout`): worth another attempt. */
class Interrupted extends Error {}

async function transfer(
  core: Core,
  key: string | null,
  url: string,
  part: PartFile,
  size: number,
  options: DownloadOptions,
) {
  const { fetch, timeoutMs, userAgent } = core.settings.http;
  // The timeout is between bytes: a large file takes as long as it takes, a stalled one does not.
  const idle = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(new DOMException("no data", "TimeoutError")), timeoutMs);
  };
  const network = async <T>(step: () => Promise<T>): Promise<T> => {
    touch();
    try {
      return await step();
    } catch (error) {
      throw new Interrupted(describeFailure(error, timeoutMs));
    }
  };
  try {
    const headers: Record<string, string> = { "user-agent": userAgent };
    if (key !== null) headers["x-license-key"] = key;
    if (part.size > 0) headers.range = `bytes=${part.size}-`;
    const response = await network(() => follow(fetch, url, headers, idle.signal));
    if (response.status === 206) {
      const start = /^bytes (\d+)-/.exec(response.headers.get("content-range") ?? "")?.[1];
      if (Number(start) !== part.size) {
        await response.body?.cancel();
        throw refuse(`asked for the bytes from ${part.size}, the server sent a range from ${start}`);
      }
    } else if (response.status === 200) {
      await part.truncate(); // the whole file instead of the rest: start over
    } else {
      const said = await response.text().catch(() => "");
      if (response.status >= 500) throw new Interrupted(`HTTP ${response.status}`);
      if (response.status === 416) {
        await part.truncate();
        throw new Interrupted("the server has no such range: starting over");
      }
      throw refusal(response.status, said);
    }
    const reader = response.body?.getReader();
    if (!reader) throw new Interrupted("the answer has no body");
    for (;;) {
      const chunk = await network(() => reader.read());
      if (chunk.done) break;
      if (part.size + chunk.value.byteLength > size) {
        await reader.cancel();
        await part.discard();
        throw refuse(
          `the server sent more than the artifact's ${size} bytes: stopped, and deleted ${part.path}`,
        );
      }
      await part.append(chunk.value);
      options.onProgress?.(part.size, size);
    }
    if (part.size < size) throw new Interrupted(`the connection closed at ${part.size} of ${size} bytes`);
  } finally {
    clearTimeout(timer);
  }
}

/** GET `url`, following redirects by hand so that the license key stays with depot's origin. */
async function follow(fetcher: Fetch, url: string, headers: Record<string, string>, signal: AbortSignal) {
  const origin = new URL(url).origin;
  let current = url;
  const sent = { ...headers };
  for (let redirects = 0; ; redirects++) {
    const response = await fetcher(current, { headers: sent, signal, redirect: "manual" });
    const location = response.headers.get("location");
    if (location === null || response.status < 300 || response.status >= 400 || redirects >= MAX_REDIRECTS) {
      return response;
    }
    await response.body?.cancel();
    const next = new URL(location, current);
    // A bucket's presigned URL (another host) gets the range, not the license key.
    if (next.origin !== origin) delete sent["x-license-key"];
    current = next.toString();
  }
}

/** A download's refusal is not signed: it can only say no, which anyone in the middle can anyway. */
function refusal(status: number, said: string): RefusedError {
  let message = `the download was refused (HTTP ${status})`;
  try {
    const body = JSON.parse(said) as { message?: unknown };
    if (typeof body.message === "string") message = body.message;
  } catch {
    // not JSON: the status says it
  }
  return new RefusedError(CODELESS[status] ?? `HTTP_${status}`, message, status);
}
