import { fromBase64, fromUtf8, sameBytes, sha256, utf8 } from "./encoding.js";
import { UnverifiableError } from "./errors.js";
import type { RawAnswer } from "./http.js";
import type { KeySet } from "./jwks.js";
import { byteSequence, dictionaryMember, dictionaryMembers } from "./structured-fields.js";

/** A signed answer that passed every check: its status, its JSON body, and when it was signed. */
export interface VerifiedAnswer {
  status: number;
  body: Record<string, unknown>;
  /** The signature's `created`, in seconds since the epoch. */
  created: number;
}

export interface AnswerChecks {
  keys: KeySet;
  /** Now, in seconds since the epoch. */
  now: number;
  /** How far `created` may be from now, before (an old answer) and after (a clock ahead). */
  maxAgeSeconds: number;
  maxFutureSeconds: number;
  /** The nonce the request sent, which the answer must echo. */
  nonce: string;
}

/** The only components depot signs, in its order: anything else would need another signature base. */
const COMPONENTS = '("@status" "content-type" "content-digest")';
const PARAMS = new Set(["created", "keyid", "alg"]);

const fail = (message: string, check: UnverifiableError["check"]) => new UnverifiableError(message, check);

/**
 * Checks that `raw` is depot's own answer to the request that sent `checks.nonce`, in the order of
 * sdk/README.md ("What is checked", 1–6): digest of the exact bytes, signature input, a trusted key,
 * the Ed25519 signature, `created`, the JSON body and its nonce. Whether it is about what was asked
 * (7) is the operation's to check. Throws UnverifiableError, naming the check that failed.
 */
export async function verifyAnswer(raw: RawAnswer, checks: AnswerChecks): Promise<VerifiedAnswer> {
  const { status, headers, body } = raw;
  const input = headers.get("signature-input");
  const signature = headers.get("signature");
  if (input === null || signature === null) {
    const location = status >= 300 && status < 400 ? headers.get("location") : null;
    if (location !== null) {
      throw fail(
        `the answer is a redirect to ${location}, not signed (is the server setting depot's own address?)`,
        "signed",
      );
    }
    // Without this, anyone who can answer in depot's place (a hosts-file entry, a proxy) says "valid".
    throw fail("the answer is not signed", "signed");
  }

  // 1. The digest: the signature covers the Content-Digest header; only this ties it to the bytes.
  const digestHeader = headers.get("content-digest");
  if (digestHeader === null) throw fail("the answer has no Content-Digest", "digest");
  const sha256Member = dictionaryMember(digestHeader, "sha-256");
  const claimed = sha256Member === null ? null : fromBase64(byteSequence(sha256Member) ?? "");
  if (claimed === null || claimed.length !== 32) {
    throw fail(`the Content-Digest is not a sha-256 digest: ${digestHeader}`, "digest");
  }
  if (!sameBytes(claimed, await sha256(body))) {
    throw fail("the body does not match its Content-Digest", "digest");
  }

  // 2. The signature input: exactly what depot sends, or the base built from it would prove nothing.
  const members = dictionaryMembers(input);
  const params = members?.length === 1 && members[0]?.[0] === "depot" ? members[0][1] : null;
  if (params === null || !params.startsWith(COMPONENTS)) {
    throw fail(`unsupported Signature-Input: ${input}`, "signature-input");
  }
  const { created, keyid, alg } = signatureParams(params.slice(COMPONENTS.length), input);
  if (alg !== "ed25519") throw fail(`the signature's alg is "${alg}", expected "ed25519"`, "signature-input");
  const contentType = headers.get("content-type");
  if (contentType === null) throw fail("the answer has no Content-Type", "signature-input");

  // 3. A trusted key.
  const key = await checks.keys.key(keyid);

  // 4. The signature over the base of docs/integrators.md.
  const signatureMember = dictionaryMember(signature, "depot");
  const signatureBytes = fromBase64(byteSequence(signatureMember ?? "") ?? "");
  if (signatureBytes === null || signatureBytes.length !== 64) {
    throw fail(`the Signature is not an Ed25519 signature labelled depot: ${signature}`, "signature-input");
  }
  const base = [
    `"@status": ${status}`,
    `"content-type": ${contentType.trim()}`,
    `"content-digest": ${digestHeader.trim()}`,
    `"@signature-params": ${params}`,
  ].join("\n");
  if (!(await crypto.subtle.verify("Ed25519", key, signatureBytes, utf8(base)))) {
    throw fail("the signature does not verify", "signature");
  }

  // 5. Fresh: a signed answer recorded yesterday stays signed, so the clock bounds its replay…
  const age = checks.now - created;
  if (age > checks.maxAgeSeconds) {
    throw fail(`the signature was created ${age} s ago (more than ${checks.maxAgeSeconds} s)`, "created");
  }
  if (-age > checks.maxFutureSeconds) {
    throw fail(
      `the signature was created ${-age} s in the future (more than ${checks.maxFutureSeconds} s)`,
      "created",
    );
  }

  // 6. …and the nonce makes it worthless: only an answer to this very request echoes it.
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromUtf8(body));
  } catch {
    throw fail("the signed body is not JSON", "body");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw fail("the signed body is not a JSON object", "body");
  }
  const json = parsed as Record<string, unknown>;
  const success = status >= 200 && status < 300;
  if ((success || "nonce" in json) && json.nonce !== checks.nonce) {
    throw fail("the answer does not echo our nonce (a replayed answer?)", "nonce");
  }
  return { status, body: json, created };
}

/** `;created=…;keyid="…";alg="…"`, each exactly once and nothing else. */
function signatureParams(text: string, input: string) {
  const values = new Map<string, string>();
  const rest = text.replace(/;([a-z*][a-z0-9_.*-]*)=("[^"\\]*"|-?\d{1,15})/g, (_, name: string, value) => {
    if (!PARAMS.has(name) || values.has(name))
      throw fail(`unsupported Signature-Input: ${input}`, "signature-input");
    values.set(name, value);
    return "";
  });
  const created = values.get("created");
  const keyid = values.get("keyid");
  const alg = values.get("alg");
  if (rest !== "" || created === undefined || keyid === undefined || alg === undefined) {
    throw fail(`unsupported Signature-Input: ${input}`, "signature-input");
  }
  if (!/^\d+$/.test(created) || !keyid.startsWith('"') || !alg.startsWith('"')) {
    throw fail(`unsupported Signature-Input: ${input}`, "signature-input");
  }
  return { created: Number(created), keyid: keyid.slice(1, -1), alg: alg.slice(1, -1) };
}
