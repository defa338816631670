import { type KeyObject, sign } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { errorFields } from "../../log-errors.ts";
import { activeKey, ensureActiveKey, openPrivateKey } from "./keys.ts";

/** A key that can sign: its id and the signing function, always taken together. */
export interface SigningKey {
  readonly kid: string;
  /** The 64-byte Ed25519 signature of `data`. */
  sign(data: Uint8Array | string): Buffer;
}

function signingKey(kid: string, privateKey: KeyObject): SigningKey {
  return {
    kid,
    sign: (data) => sign(null, typeof data === "string" ? Buffer.from(data) : data, privateKey),
  };
}

/**
 * The key this process signs with. Loaded once before serving (a key that cannot be opened stops
 * start-up); afterwards signing never waits on the database: every SIGNING_KEY_REFRESH_SECONDS the
 * next signature starts a background check for a rotation made by `depot keys:rotate` or another
 * instance. Until it lands the previous key signs, and that key stays published through its grace.
 */
export class SigningKeyring {
  private key: SigningKey | null = null;
  private checkedAt = 0;
  private refreshing: Promise<void> | null = null;

  constructor(private readonly ctx: Pick<AppContext, "db" | "appKey" | "config" | "log">) {}

  /** Creates the first key if there is none and opens the active one; throws ConfigError(APP_KEY). */
  async load(): Promise<void> {
    const row = await ensureActiveKey(this.ctx);
    this.key = signingKey(row.kid, openPrivateKey(this.ctx.appKey, row));
    this.checkedAt = Date.now();
  }

  /** The active key; checks for a rotation in the background when the last check is old enough. */
  current(): SigningKey {
    if (!this.key) throw new Error("signing keys are not loaded");
    if (Date.now() - this.checkedAt > this.ctx.config.signingKeyRefreshSeconds * 1000) {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = null;
      });
    }
    return this.key;
  }

  /** Picks up a rotation; on any failure keeps signing with the current key and says why. */
  async refresh(): Promise<void> {
    this.checkedAt = Date.now();
    try {
      const row = await activeKey(this.ctx);
      if (!row || row.kid === this.key?.kid) return;
      this.key = signingKey(row.kid, openPrivateKey(this.ctx.appKey, row));
      this.ctx.log.info("signing key changed", { kid: row.kid });
    } catch (error) {
      this.ctx.log.error("signing key refresh failed; signing with the previous key", errorFields(error));
    }
  }
}
