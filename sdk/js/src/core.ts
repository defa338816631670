import { type VerifiedAnswer, verifyAnswer } from "./answer.js";
import { type ClientOptions, resolveSettings, type Settings } from "./config.js";
import { newNonce } from "./encoding.js";
import { RefusedError, UnreachableError, UnverifiableError } from "./errors.js";
import { type RawAnswer, type RequestInit, request, retryAfterSeconds } from "./http.js";
import { KeySet } from "./jwks.js";
import { StateStore } from "./state.js";

/** A verified answer with the request's nonce and the bytes it came as (kept by status()). */
export interface Exchange {
  answer: VerifiedAnswer;
  raw: RawAnswer;
  nonce: string;
}

/** Codes for refusals that carry none, by status (sdk/README.md, "Three outcomes"); else HTTP_<status>. */
export const CODELESS: Record<number, string> = {
  400: "INVALID",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  422: "INVALID",
  429: "TOO_MANY_REQUESTS",
};

/** What every operation shares: the settings, the trusted keys, what is kept, and one way to ask. */
export class Core {
  readonly settings: Settings;
  readonly keys: KeySet;
  readonly store: StateStore;

  constructor(options: ClientOptions) {
    this.settings = resolveSettings(options);
    const { pinned } = this.settings;
    this.keys = new KeySet(pinned, pinned === null ? () => this.#fetchJwks() : null);
    this.store = new StateStore(this.settings.stateDir);
  }

  /** Now, in whole seconds since the epoch, by the client's clock. */
  nowSeconds(): number {
    return Math.floor(this.settings.clock().getTime() / 1000);
  }

  /**
   * Sends a request with a fresh nonce (`withNonce` puts it where the route takes it) and returns
   * depot's verified answer, whatever its status. Throws UnreachableError or UnverifiableError.
   */
  async ask(path: string, withNonce: (nonce: string) => RequestInit & { query?: string }): Promise<Exchange> {
    const { raw, nonce } = await this.send(path, withNonce);
    const answer = await this.verify(raw, nonce, this.settings.maxClockSkewSeconds);
    return { answer, raw, nonce };
  }

  /** The request, and its answer as it came (for the one answer depot does not sign, a 204). */
  async send(path: string, withNonce: (nonce: string) => RequestInit & { query?: string }) {
    const nonce = newNonce();
    const { query, ...init } = withNonce(nonce);
    const raw = await request(this.settings.http, `${this.settings.server}${path}${query ?? ""}`, init);
    return { raw, nonce };
  }

  /** Checks 1–6 on `raw`, answering `nonce`, signed at most `maxAgeSeconds` ago. */
  verify(raw: RawAnswer, nonce: string, maxAgeSeconds: number): Promise<VerifiedAnswer> {
    return verifyAnswer(raw, {
      keys: this.keys,
      now: this.nowSeconds(),
      maxAgeSeconds,
      maxFutureSeconds: this.settings.maxClockSkewSeconds,
      nonce,
    });
  }

  /** A verified answer that is not a success, as the refusal it is. */
  refusal({ answer, raw }: Exchange): RefusedError {
    const { status, body } = answer;
    const code = typeof body.code === "string" ? body.code : (CODELESS[status] ?? `HTTP_${status}`);
    const message = typeof body.message === "string" ? body.message : `HTTP ${status}`;
    const retryAfter = retryAfterSeconds(raw.headers.get("retry-after"));
    const errors = isFieldErrors(body.errors) ? body.errors : undefined;
    const fileExpiresAt = typeof body.fileExpiresAt === "string" ? new Date(body.fileExpiresAt) : undefined;
    return new RefusedError(code, message, status, {
      ...(retryAfter === null ? {} : { retryAfter }),
      ...(errors === undefined ? {} : { errors }),
      ...(fileExpiresAt === undefined || Number.isNaN(fileExpiresAt.getTime()) ? {} : { fileExpiresAt }),
    });
  }

  async #fetchJwks(): Promise<{ body: Uint8Array }> {
    const url = `${this.settings.server}/.well-known/jwks.json`;
    const raw = await request(this.settings.http, url, { method: "GET" });
    if (raw.status !== 200) throw new UnreachableError(`cannot fetch ${url}: HTTP ${raw.status}`);
    return raw;
  }
}

function isFieldErrors(value: unknown): value is Record<string, string[]> {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.values(value).every((v) => Array.isArray(v) && v.every((m) => typeof m === "string"))
  );
}

/** A verified body that lacks what the operation answers: not depot's answer to this. */
export const notAnAnswer = (what: string) => new UnverifiableError(`the answer is not ${what}`, "body");
