import { fromBase64Url, fromUtf8 } from "./encoding.js";
import { UnverifiableError } from "./errors.js";

/** One of depot's public keys, as /.well-known/jwks.json lists it. */
export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  /** The public key, base64url. */
  x: string;
  /** Its RFC 7638 thumbprint: what a signature's keyid and a license file's kid name. */
  kid: string;
}

/** A JSON Web Key Set: the text of /.well-known/jwks.json, or that text parsed. */
export type Jwks = string | { keys: unknown[] };

/**
 * The Ed25519 signing keys of a JWKS; anything else in it is skipped, since nothing else may vouch
 * for an answer. Throws a TypeError for a set that is not one or holds no such key.
 */
export function parseJwks(source: Jwks): PublicJwk[] {
  let set: unknown = source;
  if (typeof source === "string") {
    try {
      set = JSON.parse(source);
    } catch (error) {
      throw new TypeError(`the JWKS is not JSON (${(error as Error).message})`);
    }
  }
  const list = (set as { keys?: unknown } | null)?.keys;
  if (typeof set !== "object" || set === null || !Array.isArray(list)) {
    throw new TypeError("the JWKS has no keys array");
  }
  const keys = list.filter(isSigningKey).map(({ kty, crv, x, kid }) => ({ kty, crv, x, kid }));
  if (keys.length === 0) throw new TypeError("the JWKS has no Ed25519 signing key");
  return keys;
}

function isSigningKey(key: unknown): key is PublicJwk {
  const k = key as Record<string, unknown> | null;
  return (
    typeof k === "object" &&
    k !== null &&
    k.kty === "OKP" &&
    k.crv === "Ed25519" &&
    typeof k.x === "string" &&
    fromBase64Url(k.x)?.length === 32 &&
    typeof k.kid === "string" &&
    k.kid !== "" &&
    (k.alg === undefined || k.alg === "EdDSA" || k.alg === "Ed25519") &&
    (k.use === undefined || k.use === "sig")
  );
}

/** How a fetched set is fetched again: at most this often, whatever keyids answers name. */
const REFETCH_AFTER_MS = 60_000;

/**
 * The keys answers and license files are checked with. Pinned: exactly those, never more (a server
 * that hands out its own keys vouches for anything it says). Fetched (fetchJwks without a pinned
 * set): the server's set, at first use and again when a keyid is unknown, at most once a minute.
 */
export class KeySet {
  #keys: PublicJwk[] | null;
  #fetchedAt = 0;
  #fetching: Promise<void> | null = null;
  readonly #imported = new Map<string, Promise<CryptoKey>>();

  constructor(
    pinned: PublicJwk[] | null,
    private readonly fetchSet: (() => Promise<{ body: Uint8Array }>) | null,
  ) {
    this.#keys = pinned;
  }

  get pinned(): boolean {
    return this.fetchSet === null;
  }

  /** The keys trusted now (fetching them first when they are fetched and not yet there). */
  async list(): Promise<readonly PublicJwk[]> {
    if (this.#keys === null) await this.#fetch();
    return this.#keys ?? [];
  }

  /** The verifying key named `kid`; UnverifiableError (check "key") when there is none. */
  async key(kid: string): Promise<CryptoKey> {
    let jwk = (await this.list()).find((k) => k.kid === kid);
    if (!jwk && !this.pinned && Date.now() - this.#fetchedAt > REFETCH_AFTER_MS) {
      // A key rotated in since the set was fetched: look once more.
      await this.#fetch();
      jwk = this.#keys?.find((k) => k.kid === kid);
    }
    if (!jwk) {
      throw new UnverifiableError(
        this.pinned ? `the key "${kid}" is not pinned` : `no published key has keyid "${kid}"`,
        "key",
      );
    }
    let imported = this.#imported.get(jwk.x);
    if (!imported) {
      imported = crypto.subtle.importKey(
        "jwk",
        { kty: "OKP", crv: "Ed25519", x: jwk.x },
        { name: "Ed25519" },
        false,
        ["verify"],
      );
      this.#imported.set(jwk.x, imported);
    }
    return imported;
  }

  /** One fetch at a time: answers checked together wait for the same one. */
  #fetch(): Promise<void> {
    this.#fetching ??= this.#fetchOnce().finally(() => {
      this.#fetching = null;
    });
    return this.#fetching;
  }

  async #fetchOnce(): Promise<void> {
    if (!this.fetchSet) return;
    const { body } = await this.fetchSet();
    this.#fetchedAt = Date.now();
    try {
      this.#keys = parseJwks(fromUtf8(body));
    } catch (error) {
      throw new UnverifiableError(`the server's JWKS: ${(error as Error).message}`, "key");
    }
  }
}
