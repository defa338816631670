import { UnreachableError, UnverifiableError } from "./errors.js";

/**
 * A fetch: the platform's, Electron's `net.fetch` or a test's. Only its call signature, so that
 * runtimes whose `fetch` carries extras (Bun's `preconnect`) accept a plain function too.
 */
export type Fetch = (input: string | URL | Request, init?: Parameters<typeof fetch>[1]) => Promise<Response>;

/** How requests are sent: the client's settings, in milliseconds. */
export interface HttpSettings {
  fetch: Fetch;
  /** Per attempt, connect to last byte. */
  timeoutMs: number;
  /** Extra attempts after a connection failure, a timeout, 502, 503, 504, or a 429 worth waiting for. */
  retries: number;
  /** The longest wait before a retry: a Retry-After beyond it is not waited for. */
  maxRetryWaitMs: number;
  userAgent: string;
}

/** An answer exactly as it came: the digest and signature are checked over these bytes. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  body: Uint8Array<ArrayBuffer>;
}

export interface RequestInit {
  method: "GET" | "POST" | "DELETE";
  headers?: Record<string, string>;
  /** JSON text. */
  body?: string;
}

/** More than any answer depot sends: a server sending this much is not depot. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const RETRIED_STATUSES = new Set([502, 503, 504]);
const FIRST_BACKOFF_MS = 250;

/**
 * Sends `init` to `url` until an answer comes that is not worth retrying, and returns it as it came
 * (any status: the caller verifies it). Throws UnreachableError when the retries run out without one.
 */
export async function request(settings: HttpSettings, url: string, init: RequestInit): Promise<RawAnswer> {
  for (let failures = 0; ; failures++) {
    const outcome = await attempt(settings, url, init);
    const wait = retryWait(settings, outcome, failures);
    if (wait === null || failures >= settings.retries) {
      if (
        "answer" in outcome &&
        !RETRIED_STATUSES.has(outcome.answer.status) &&
        outcome.answer.status < 500
      ) {
        return outcome.answer;
      }
      throw new UnreachableError(unreachable(url, outcome, failures + 1));
    }
    await sleep(wait);
  }
}

type Outcome = { answer: RawAnswer } | { failure: string };

async function attempt(settings: HttpSettings, url: string, init: RequestInit): Promise<Outcome> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": settings.userAgent,
    ...init.headers,
  };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const signal = AbortSignal.timeout(settings.timeoutMs);
  try {
    // Never followed: depot's API does not redirect, and a POST must not be replayed elsewhere.
    const response = await settings.fetch(url, { ...init, headers, signal, redirect: "manual" });
    const body = await readAtMost(response, MAX_ANSWER_BYTES);
    return { answer: { status: response.status, headers: response.headers, body } };
  } catch (error) {
    if (error instanceof UnverifiableError) throw error;
    return { failure: describeFailure(error, settings.timeoutMs) };
  }
}

/** How long to wait before the next attempt, or null when this outcome is final. */
function retryWait(settings: HttpSettings, outcome: Outcome, failures: number): number | null {
  const backoff = Math.min(
    settings.maxRetryWaitMs,
    FIRST_BACKOFF_MS * 2 ** failures * (0.8 + Math.random() * 0.4),
  );
  if ("failure" in outcome) return backoff;
  const { status, headers } = outcome.answer;
  if (!RETRIED_STATUSES.has(status) && status !== 429) return null;
  const asked = retryAfterSeconds(headers.get("retry-after"));
  if (asked === null) return status === 429 ? null : backoff;
  const ms = asked * 1000;
  return ms <= settings.maxRetryWaitMs ? ms : null;
}

function unreachable(url: string, outcome: Outcome, attempts: number): string {
  const why = "failure" in outcome ? outcome.failure : `HTTP ${outcome.answer.status}`;
  const tries = attempts === 1 ? "" : ` (${attempts} attempts)`;
  return `cannot reach ${url}: ${why}${tries}`;
}

/** Retry-After in seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

async function readAtMost(response: Response, max: number): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new UnverifiableError(`the answer is larger than ${max / 1024 / 1024} MiB: not depot's`, "body");
  if (Number(response.headers.get("content-length") ?? 0) > max) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** The usual network failures in words: Node puts the code on `cause`, Bun on the error. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNRESET: "connection reset",
  ConnectionReset: "connection reset",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "no such host (DNS)",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  UND_ERR_SOCKET: "connection closed",
};

export function describeFailure(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = (error as { cause?: unknown }).cause;
  for (const source of [error, cause]) {
    const code = (source as { code?: unknown } | undefined)?.code;
    if (typeof code === "string") return NETWORK_ERRORS[code] ?? `${(source as Error).message} (${code})`;
  }
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

export const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
