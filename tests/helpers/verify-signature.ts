import { createHash, createPublicKey, verify } from "node:crypto";
import { httpbis } from "http-message-signatures";

/**
 * Verifies a signed depot answer the way a client would, with code that is not depot's: RFC 9530
 * `Content-Digest` with node:crypto's SHA-256, RFC 9421 `Signature-Input`/`Signature` with the
 * http-message-signatures package, and Ed25519 with node:crypto and the JWK from the JWKS. Nothing
 * here imports depot's signing code.
 */

/** A public key as a JWKS lists it. */
export interface Jwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg?: string;
  use?: string;
}
export interface Jwks {
  keys: Jwk[];
}

/** An answer as received: status, headers (lower-case names) and the exact body bytes. */
export interface SignedMessage {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface Verification {
  /** `Content-Digest` is `sha-256=:…:` and matches the body bytes. */
  digestOk: boolean;
  /** Exactly one signature, labelled `depot`, covering status, content type and digest, that verifies. */
  signatureOk: boolean;
  /** Both: what a client may trust. */
  ok: boolean;
  /** The `keyid` the signature names (null when there is none). */
  kid: string | null;
  /** The `created` parameter, in seconds (null when there is none). */
  created: number | null;
  /** Why the signature library refused, when it threw rather than answering false. */
  error: string | null;
}

export const SIGNATURE_LABEL = "depot";
export const COVERED = ["@status", "content-type", "content-digest"];

/** Reads a fetch Response into a SignedMessage (consumes its body). */
export async function readSigned(response: Response): Promise<SignedMessage> {
  const body = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

/** The body of a SignedMessage parsed as JSON. */
// biome-ignore lint/suspicious/noExplicitAny: assertions narrow it
export const bodyJson = (message: SignedMessage): any => JSON.parse(new TextDecoder().decode(message.body));

/** RFC 9530: `sha-256=:<base64 SHA-256 of the bytes>:`. */
export const sha256Digest = (body: Uint8Array | string): string =>
  `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;

/** True when the `sha-256` member of `header` (a structured dictionary) matches `body`. */
function digestMatches(header: string | undefined, body: Uint8Array): boolean {
  if (header === undefined) return false;
  const members = header.split(",").map((member) => member.trim());
  const sha256 = members.filter((member) => member.startsWith("sha-256="));
  if (sha256.length !== 1) return false;
  return sha256[0] === sha256Digest(body);
}

export async function verifyAnswer(answer: Response | SignedMessage, jwks: Jwks): Promise<Verification> {
  const message = answer instanceof Response ? await readSigned(answer) : answer;
  const digestOk = digestMatches(message.headers["content-digest"], message.body);
  const seen: { keyid: string | null; created: number | null }[] = [];
  let signatureOk = false;
  let error: string | null = null;
  try {
    const result = await httpbis.verifyMessage(
      {
        requiredFields: COVERED,
        requiredParams: ["created", "keyid", "alg"],
        tolerance: 5,
        async keyLookup(params) {
          const keyid = typeof params.keyid === "string" ? params.keyid : null;
          const created = params.created instanceof Date ? params.created.getTime() / 1000 : null;
          seen.push({ keyid, created });
          const jwk = jwks.keys.find((key) => key.kid === keyid);
          if (!jwk) return null;
          const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: "jwk" });
          return {
            id: jwk.kid,
            algs: ["ed25519"],
            verify: async (data, signature) => verify(null, data, publicKey, signature),
          };
        },
      },
      { status: message.status, headers: message.headers },
    );
    signatureOk = result === true;
  } catch (caught) {
    error = caught instanceof Error ? `${caught.name}: ${caught.message}` : String(caught);
  }
  // The library answers for the last signature only: depot sends exactly one, labelled `depot`.
  const labelled = new RegExp(`^${SIGNATURE_LABEL}=\\(`).test(message.headers["signature-input"] ?? "");
  if (seen.length !== 1 || !labelled) signatureOk = false;
  return {
    digestOk,
    signatureOk,
    ok: digestOk && signatureOk,
    kid: seen[0]?.keyid ?? null,
    created: seen[0]?.created ?? null,
    error,
  };
}

/** The JWKS a client would fetch from `base`. */
export async function fetchJwks(base: string): Promise<Jwks> {
  const response = await fetch(`${base}/.well-known/jwks.json`);
  if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`);
  return (await response.json()) as Jwks;
}
