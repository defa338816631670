import type { SigningKey } from "./keyring.ts";

const base64url = (text: string) => Buffer.from(text).toString("base64url");

/** A compact JWS (RFC 7515) over `claims`, signed EdDSA with `key` and naming it in `kid`. */
export function compactJws(key: SigningKey, typ: string, claims: Record<string, unknown>): string {
  const header = base64url(JSON.stringify({ alg: "EdDSA", typ, kid: key.kid }));
  const payload = base64url(JSON.stringify(claims));
  const signingInput = `${header}.${payload}`;
  return `${signingInput}.${key.sign(signingInput).toString("base64url")}`;
}
