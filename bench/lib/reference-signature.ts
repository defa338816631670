// depot's signature on a reference server's answers (bench/README.md, "Round three"): an RFC 9530
// Content-Digest and an Ed25519 RFC 9421 signature over "@status", "content-type" and
// "content-digest", made by depot's own signResponseHeaders with a key generated at start.
import { generateKeyPairSync, sign } from "node:crypto";
import { signResponseHeaders } from "../../src/features/signing/http-signature.ts";

const { privateKey } = generateKeyPairSync("ed25519");
const key = {
  kid: "bench-reference",
  sign: (data: Uint8Array | string) => sign(null, Buffer.from(data), privateKey),
};

/** A JSON answer as depot sends a signed one: the JSON text, its digest and the signature headers. */
export function signedJson(status: number, value: unknown, headers: Record<string, string> = {}): Response {
  const body = JSON.stringify(value);
  return new Response(body, {
    status,
    headers: {
      "content-type": "application/json",
      ...headers,
      ...signResponseHeaders(key, status, "application/json", body),
    },
  });
}
