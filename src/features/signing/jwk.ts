import { createHash, type KeyObject } from "node:crypto";

/** An Ed25519 public key as a JWKS publishes it. */
export interface PublicJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  kid: string;
  alg: "EdDSA";
  use: "sig";
}

/** The raw public key, base64url: a JWK's `x`. */
export function rawPublicKey(key: KeyObject): string {
  const { x } = key.export({ format: "jwk" });
  if (key.asymmetricKeyType !== "ed25519" || typeof x !== "string") throw new Error("not an Ed25519 key");
  return x;
}

/**
 * The RFC 7638 thumbprint: SHA-256 over the required members in lexicographic order, no whitespace.
 * Anyone holding the public key computes the same id, so `kid` cannot be made to name another key.
 */
export const thumbprint = (x: string): string =>
  createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");

export const publicJwk = (key: { kid: string; publicKey: string }): PublicJwk => ({
  kty: "OKP",
  crv: "Ed25519",
  x: key.publicKey,
  kid: key.kid,
  alg: "EdDSA",
  use: "sig",
});
