import type { SigningKey } from "./keyring.ts";

/** The label of depot's signature in `Signature-Input` and `Signature` (RFC 9421 §4). */
export const SIGNATURE_LABEL = "depot";
/** What a signature covers: the status, the body's type and, through its digest, the body itself. */
export const SIGNED_COMPONENTS = ['"@status"', '"content-type"', '"content-digest"'] as const;

/** RFC 9530: `sha-256=:<base64 of the SHA-256 of the body bytes>:`. */
export const contentDigest = (body: Uint8Array | string): string =>
  `sha-256=:${new Bun.CryptoHasher("sha256").update(body).digest("base64")}:`;

/**
 * Adds `Content-Digest`, `Signature-Input` and `Signature` (RFC 9421) to `headers` for a response with
 * this status and body. `headers` must already hold the `Content-Type` that will be sent.
 */
export function signResponseHeaders(
  key: SigningKey,
  status: number,
  headers: Headers,
  body: Uint8Array | string,
) {
  const digest = contentDigest(body);
  const contentType = headers.get("content-type") ?? "";
  const created = Math.floor(Date.now() / 1000);
  const params = `(${SIGNED_COMPONENTS.join(" ")});created=${created};keyid="${key.kid}";alg="ed25519"`;
  // RFC 9421 §2.5: one line per covered component, then the parameters; no trailing newline.
  const base =
    `"@status": ${status}\n"content-type": ${contentType}\n"content-digest": ${digest}\n` +
    `"@signature-params": ${params}`;
  headers.set("content-digest", digest);
  headers.set("signature-input", `${SIGNATURE_LABEL}=${params}`);
  headers.set("signature", `${SIGNATURE_LABEL}=:${key.sign(base).toString("base64")}:`);
}
