import type { SigningKey } from "./keyring.ts";

/** The label of depot's signature in `Signature-Input` and `Signature` (RFC 9421 §4). */
export const SIGNATURE_LABEL = "depot";
/** What a signature covers: the status, the body's type and, through its digest, the body itself. */
export const SIGNED_COMPONENTS = ['"@status"', '"content-type"', '"content-digest"'] as const;

/** RFC 9530: `sha-256=:<base64 of the SHA-256 of the body bytes>:`. */
export const contentDigest = (body: Uint8Array | string): string =>
  `sha-256=:${new Bun.CryptoHasher("sha256").update(body).digest("base64")}:`;

/**
 * The `Content-Digest`, `Signature-Input` and `Signature` headers (RFC 9421) of a response with this
 * status, content type and body.
 */
export function signResponseHeaders(
  key: SigningKey,
  status: number,
  contentType: string,
  body: Uint8Array | string,
): Record<"content-digest" | "signature-input" | "signature", string> {
  const digest = contentDigest(body);
  const created = Math.floor(Date.now() / 1000);
  const params = `(${SIGNED_COMPONENTS.join(" ")});created=${created};keyid="${key.kid}";alg="ed25519"`;
  // RFC 9421 §2.5: one line per covered component, then the parameters; no trailing newline.
  const base =
    `"@status": ${status}\n"content-type": ${contentType}\n"content-digest": ${digest}\n` +
    `"@signature-params": ${params}`;
  return {
    "content-digest": digest,
    "signature-input": `${SIGNATURE_LABEL}=${params}`,
    signature: `${SIGNATURE_LABEL}=:${key.sign(base).toString("base64")}:`,
  };
}
