import { MAX_ERROR_BYTES, MAX_JSON_BYTES, readAtMost, sizeOf } from "./body-limits.ts";
import { Refused } from "./failures.ts";
import { Retryable, type RetryPolicy, retryNotice, withRetries } from "./retry.ts";

/**
 * How a client command proves who it is: a personal access token, or (downloads only) a license key.
 * `from` names where the token came from, for the message when the server refuses it.
 */
export type Credential =
  | { kind: "token"; token: string; from: "--token" | "DEPOT_TOKEN" | "depot login" }
  | { kind: "license-key"; key: string };

/** How long an API request may take (connect, send, answer) before the attempt counts as failed. */
export const REQUEST_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;
/** What only depot may see: credentials, and validators that mean nothing to another host. */
const SERVER_ONLY_HEADERS = ["authorization", "x-license-key", "if-range", "if-none-match"];

export interface RequestOptions {
  /** Per attempt; null for none (an upload or download that takes as long as it takes). */
  timeoutMs?: number | null;
  /** Called before each wait between attempts, to say why (stderr by default). */
  onRetry?: (error: Retryable, delayMs: number, failures: number) => void;
}

/**
 * HTTP to one depot server, shared by the client commands: it sends the credential, follows
 * redirects (a download may be sent to a presigned bucket URL, which gets no credential), turns an
 * error answer into its message, and retries what is worth retrying.
 *
 * `send` is one attempt: it returns a 2xx response, throws Refused for any other final answer (4xx),
 * and Retryable for connection errors and 5xx. `request` wraps it in the retry policy and throws
 * GaveUp when the retries run out.
 */
export class DepotClient {
  constructor(
    /** Base URL without a trailing slash (cli/connection.ts resolveServer). */
    readonly server: string,
    readonly credential: Credential | null,
    readonly retry: RetryPolicy,
  ) {}

  url(path: string): string {
    return `${this.server}${path}`;
  }

  /** One attempt at `path` (below the server's base URL). */
  async send(path: string, init: RequestInit = {}): Promise<Response> {
    const method = init.method ?? "GET";
    let url = this.url(path);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.#credentialHeaders())) headers.set(name, value);
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(url, { ...init, headers, redirect: "manual" }).catch((error: Error) => {
        throw new Retryable(`cannot reach ${url}: ${describe(error)}`);
      });
      const location = response.headers.get("location");
      const follow = location !== null && [301, 302, 303, 307, 308].includes(response.status);
      if (follow && (method === "GET" || method === "HEAD") && redirects < MAX_REDIRECTS) {
        await response.body?.cancel();
        const next = new URL(location, url);
        if (!sameOrigin(next, this.server)) {
          for (const name of SERVER_ONLY_HEADERS) headers.delete(name);
        }
        url = next.toString();
        continue;
      }
      if (response.status >= 200 && response.status < 300) return response;
      const said = await errorMessage(response);
      if (response.status === 401 && this.credential?.kind === "token" && sameOrigin(url, this.server)) {
        throw new Refused(tokenRefused(this.server, this.credential.from, said), 401);
      }
      const message = `${url} answered ${response.status}: ${said}`;
      if (response.status >= 500) throw new Retryable(message);
      throw new Refused(message, response.status);
    }
  }

  /**
   * `send`, retried by the policy, then `read` of the response inside the same attempt (a body cut
   * short is retried too). A request body must be rebuilt for each attempt: pass `init` as a function.
   */
  request<T = Response>(
    path: string,
    init: RequestInit | (() => RequestInit) = {},
    options: RequestOptions & { read?: (response: Response) => Promise<T> } = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs === undefined ? REQUEST_TIMEOUT_MS : options.timeoutMs;
    const read = options.read ?? (async (response: Response) => response as T);
    return withRetries(
      this.retry,
      async () => {
        const fresh = typeof init === "function" ? init() : init;
        const timeout = timeoutMs === null ? null : AbortSignal.timeout(timeoutMs);
        const signals = [fresh.signal, timeout].filter((signal) => signal != null);
        const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
        const response = await this.send(path, { ...fresh, signal });
        return read(response);
      },
      options.onRetry ?? ((error, delayMs, failures) => reportRetry(error, delayMs, failures, this.retry)),
    );
  }

  /**
   * GET `path` and its JSON body, of at most `maxBytes`; an answer that is not JSON, or larger, is
   * not depot (exit 1, not retried).
   */
  json<T>(path: string, maxBytes = MAX_JSON_BYTES): Promise<T> {
    return this.request(
      path,
      { headers: { accept: "application/json" } },
      { read: (response) => readJson<T>(response, maxBytes) },
    );
  }

  #credentialHeaders(): Record<string, string> {
    if (this.credential?.kind === "token") return { authorization: `Bearer ${this.credential.token}` };
    if (this.credential?.kind === "license-key") return { "x-license-key": this.credential.key };
    return {};
  }
}

const sameOrigin = (url: string | URL, server: string) => new URL(url).origin === new URL(server).origin;

/**
 * A 401 from depot means the token, whatever the path: say so, and where the token came from (a CI
 * secret in DEPOT_TOKEN, or --token), rather than a request URL that leaves one guessing.
 */
function tokenRefused(server: string, from: string, said: string): string {
  return (
    `${server} refused the token from ${from} (401: ${said}): ` +
    "check that it is complete, not revoked or expired, and made on this server"
  );
}

/** The default retry notice: one line on stderr, so a CI log shows why the command is slow. */
export function reportRetry(error: Retryable, delayMs: number, failures: number, policy: RetryPolicy) {
  process.stderr.write(`${retryNotice(error, delayMs, failures, policy)}\n`);
}

/**
 * What an error answer says: depot's `message`, or for a 422 every field's messages (as main prints an
 * Invalid); anything else (a proxy's HTML page) by its status text.
 */
export async function errorMessage(response: Response): Promise<string> {
  const bytes = await readAtMost(response, MAX_ERROR_BYTES).catch(() => null);
  const text = bytes === null ? "" : new TextDecoder().decode(bytes);
  try {
    const body = JSON.parse(text) as { message?: unknown; errors?: unknown };
    if (body.errors && typeof body.errors === "object") {
      const lines = Object.values(body.errors as Record<string, unknown>).flat();
      if (lines.length > 0 && lines.every((line) => typeof line === "string")) return lines.join(" ");
    }
    if (typeof body.message === "string") return body.message;
  } catch {
    // Not JSON: fall through to the status.
  }
  return response.statusText || "no message";
}

/**
 * The response's JSON body, read up to `maxBytes` (body-limits.ts): an answer cut short is retried,
 * one that is larger or not JSON is not depot (exit 1).
 */
export async function readJson<T>(response: Response, maxBytes = MAX_JSON_BYTES): Promise<T> {
  const bytes = await readAtMost(response, maxBytes).catch((error: Error) => {
    throw new Retryable(`${response.url}: the answer was cut short (${describe(error)})`);
  });
  if (bytes === null) {
    throw new Refused(
      `${response.url} answered with more than ${sizeOf(maxBytes)}, more than a depot sends: is it a depot server?`,
    );
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    throw new Refused(
      `${response.url} answered ${response.status} with something that is not JSON: is it a depot?`,
    );
  }
}

/** What the usual network failures are, in words (Bun's messages add advice that does not fit here). */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ConnectionRefused: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "no such host",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
};

/** Bun's fetch errors carry a code (ECONNREFUSED, ECONNRESET, …): its words, else the message with it. */
function describe(error: Error): string {
  if (error.name === "TimeoutError") return "no answer in time";
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code !== "string") return error.message;
  return (
    NETWORK_ERRORS[code] ?? (error.message.includes(code) ? error.message : `${error.message} (${code})`)
  );
}
