import type { Fetch, HttpSettings } from "./http.js";
import { type Jwks, type PublicJwk, parseJwks } from "./jwks.js";
import { VERSION } from "./version.js";

/** The client's settings (sdk/README.md, "Configuration"). Durations are in seconds. */
export interface ClientOptions {
  /** depot's base URL, e.g. https://licenses.example.com (a trailing slash is fine). */
  server: string;
  /** The product the app is: its id, a string of digits. */
  productId: string | number | bigint;
  /** The pinned key set: the text of depot's /.well-known/jwks.json shipped with the app, or that parsed. */
  jwks?: Jwks;
  /**
   * Fetch the key set from the server instead (at first use, and again on an unknown keyid).
   * Weaker: a fake server publishes its own keys. Ignored when `jwks` is given: then only pinned keys count.
   */
  fetchJwks?: boolean;
  /** Per attempt, connect to last byte (downloads: between bytes). Default 10. */
  timeout?: number;
  /** Extra attempts after a connection failure, a timeout, 502, 503, 504 or a short 429. Default 2. */
  retries?: number;
  /** The longest wait before a retry; a longer Retry-After is not waited for. Default 30. */
  maxRetryWait?: number;
  /** How far a signature's `created` may be from the clock. Default 300. */
  maxClockSkew?: number;
  /** How long status() trusts the last verified answer when depot cannot be reached. Default 7 days. */
  offlineGrace?: number;
  /** Where status() keeps the last verified answer and license file across restarts (Node's fs). */
  stateDir?: string;
  /** Sent on every request. Default depot-client-js/VERSION. */
  userAgent?: string;
  /** What "now" is (tests). Default the system clock. */
  clock?: () => Date;
  /** The fetch to send requests with (e.g. Electron's net.fetch, which uses the system's proxy). */
  fetch?: Fetch;
}

export interface Settings {
  server: string;
  productId: string;
  pinned: PublicJwk[] | null;
  http: HttpSettings;
  maxClockSkewSeconds: number;
  offlineGraceSeconds: number;
  stateDir: string | null;
  clock: () => Date;
}

/** Checks the options once, when the client is made: a mistake there is the app's, a TypeError. */
export function resolveSettings(options: ClientOptions): Settings {
  const server = String(options.server ?? "").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(server)) throw new TypeError(`server must be an http(s) URL, got "${server}"`);
  const productId = String(options.productId ?? "");
  if (!/^\d+$/.test(productId))
    throw new TypeError(`productId must be a string of digits, got "${productId}"`);
  if (options.jwks === undefined && !options.fetchJwks) {
    throw new TypeError("jwks is required (the pinned key set), unless fetchJwks is set");
  }
  return {
    server,
    productId,
    pinned: options.jwks === undefined ? null : parseJwks(options.jwks),
    http: {
      // Looked up at each request: a fetch installed later (a test's, a proxy agent's) is the one used.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      timeoutMs: seconds(options.timeout, 10, "timeout") * 1000,
      retries: Math.floor(seconds(options.retries, 2, "retries")),
      maxRetryWaitMs: seconds(options.maxRetryWait, 30, "maxRetryWait") * 1000,
      userAgent: options.userAgent ?? `depot-client-js/${VERSION}`,
    },
    maxClockSkewSeconds: seconds(options.maxClockSkew, 300, "maxClockSkew"),
    offlineGraceSeconds: seconds(options.offlineGrace, 7 * 86_400, "offlineGrace"),
    stateDir: options.stateDir ?? null,
    clock: options.clock ?? (() => new Date()),
  };
}

function seconds(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`${name} must be a number ≥ 0, got ${value}`);
  }
  return value;
}
