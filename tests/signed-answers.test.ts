import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { generateKeyPairSync, sign } from "node:crypto";
import { httpbis } from "http-message-signatures";
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, importJWK } from "jose";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser } from "./helpers/factories.ts";
import {
  bodyJson,
  fetchJwks,
  type Jwk,
  type Jwks,
  readSigned,
  type SignedMessage,
  sha256Digest,
  verifyAnswer,
} from "./helpers/verify-signature.ts";

/**
 * Issue 12: every answer of `POST /api/v1/licenses/validate` and `/checkout` — each code, and the
 * error answers too — carries `Content-Digest` (RFC 9530) and an Ed25519 `Signature` (RFC 9421) by a
 * key in the public JWKS. Checked over a listening server, with a verifier that is not depot's own
 * (tests/helpers/verify-signature.ts), and against answers changed in transit.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

// Hooks and tests both: building the database template can outlast bun's 5 s default on a busy machine.
setDefaultTimeout(30_000);

let t: TestApp;
let base: string;
let jwks: Jwks;
let globalKey: string;
let owner: { id: number };
let creator: { id: number };
let productA: { id: number };
let productB: { id: number };

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  owner = await createUser(t.ctx);
  creator = await createUser(t.ctx, { role: "vendor" });
  const otherCreator = await createUser(t.ctx, { role: "vendor" });
  productA = await createProduct(t.ctx, creator);
  productB = await createProduct(t.ctx, otherCreator);
  globalKey = (await apiKeyFor(t.ctx, null)).key;
  jwks = await fetchJwks(base);
});
afterAll(() => t.close());

/** A request to the listening server: JSON body (a string is sent as it is), extra headers. */
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const validate = (body: unknown, headers: Record<string, string> = {}) =>
  post("/api/v1/licenses/validate", body, headers);
const checkout = (body: unknown, headers: Record<string, string> = {}) =>
  post("/api/v1/licenses/checkout", body, headers);

async function newLicense(fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const response = await post(
    "/api/v1/licenses",
    {
      ownerId: String(owner.id),
      creatorId: String(creator.id),
      productId: String(productA.id),
      ...fields,
    },
    { "x-api-key": globalKey },
  );
  expect(response.status).toBe(201);
  return readJson(response);
}

/** A nonce no other request in this file sends. */
const nonce = () => `nonce-${crypto.randomUUID()}`;

/** `Signature-Input` taken apart: label, covered components, parameters (strings unquoted). */
function parseSignatureInput(header: string | undefined) {
  const match = /^([a-z][a-z0-9_.*-]*)=\(([^)]*)\)((?:;[a-z][a-z0-9_.*-]*=(?:"[^"]*"|\d+))*)$/.exec(
    header ?? "",
  );
  if (!match) throw new Error(`unexpected Signature-Input: ${header}`);
  const [, label, list = "", rawParams = ""] = match;
  const params: Record<string, string | number> = {};
  for (const param of rawParams.split(";").slice(1)) {
    const [name = "", value = ""] = param.split("=");
    params[name] = value.startsWith('"') ? value.slice(1, -1) : Number(value);
  }
  return { label, components: list.split(" "), params };
}

/**
 * Everything a signed answer must carry, checked field by field, and the independent verdict.
 * Returns the parsed answer for assertions on its body.
 */
async function expectSigned(response: Response, expected: { status: number; contentType: RegExp }) {
  const message = await readSigned(response);
  const before = Math.floor(Date.now() / 1000);
  expect(message.status).toBe(expected.status);
  expect(message.headers["content-type"]).toMatch(expected.contentType);
  expect(message.headers["content-digest"]).toBe(sha256Digest(message.body));
  const input = parseSignatureInput(message.headers["signature-input"]);
  expect(input.label).toBe("depot");
  expect(input.components).toEqual(['"@status"', '"content-type"', '"content-digest"']);
  expect(Object.keys(input.params).toSorted()).toEqual(["alg", "created", "keyid"]);
  expect(input.params.alg).toBe("ed25519");
  expect(typeof input.params.created).toBe("number");
  expect(Math.abs(Number(input.params.created) - before)).toBeLessThanOrEqual(5);
  expect(jwks.keys.map((key) => key.kid)).toContain(String(input.params.keyid));
  // `depot=:<base64 of a 64-byte Ed25519 signature>:`
  const signature = /^depot=:([A-Za-z0-9+/]+={0,2}):$/.exec(message.headers.signature ?? "");
  expect(signature).not.toBeNull();
  expect(Buffer.from(signature?.[1] ?? "", "base64").length).toBe(64);
  const verdict = await verifyAnswer(message, jwks);
  expect(verdict).toEqual({
    digestOk: true,
    signatureOk: true,
    ok: true,
    kid: String(input.params.keyid),
    created: Number(input.params.created),
    error: null,
  });
  return message;
}

const JSON_TYPE = /^application\/json(;\s*charset=utf-8)?$/;

describe("the JWKS", () => {
  test("GET /.well-known/jwks.json and GET /api/v1/keys answer the same public key set without auth", async () => {
    const [wellKnown, api] = await Promise.all([
      fetch(`${base}/.well-known/jwks.json`),
      fetch(`${base}/api/v1/keys`),
    ]);
    expect(wellKnown.status).toBe(200);
    expect(api.status).toBe(200);
    expect(wellKnown.headers.get("content-type")).toMatch(JSON_TYPE);
    expect(api.headers.get("content-type")).toMatch(JSON_TYPE);
    const text = await wellKnown.text();
    expect(await api.text()).toBe(text);
    expect(JSON.parse(text)).toEqual(jwks);
  });

  test("one Ed25519 key with exactly kty, crv, x, kid, alg, use; x is 32 bytes; kid is its RFC 7638 thumbprint", async () => {
    expect(Object.keys(jwks)).toEqual(["keys"]);
    expect(jwks.keys).toHaveLength(1);
    const [key] = jwks.keys as [Jwk];
    expect(Object.keys(key).toSorted()).toEqual(["alg", "crv", "kid", "kty", "use", "x"]);
    expect(key).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA", use: "sig" });
    expect(key.x).toMatch(BASE64URL_32_BYTES);
    expect(Buffer.from(key.x, "base64url").length).toBe(32);
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }, "sha256"));
    // jose takes it as an EdDSA verification key.
    const imported = await importJWK(key, "EdDSA");
    expect((imported as CryptoKey).type).toBe("public");
  });

  test("cacheable: Cache-Control public with a max-age, an ETag, and If-None-Match with it answers 304", async () => {
    const first = await fetch(`${base}/.well-known/jwks.json`);
    expect(first.status).toBe(200);
    const cacheControl = first.headers.get("cache-control") ?? "";
    expect(cacheControl).toMatch(/(^|,\s*)public(\s*,|$)/);
    const maxAge = /(?:^|,\s*)max-age=(\d+)(?:\s*,|$)/.exec(cacheControl);
    expect(Number(maxAge?.[1])).toBeGreaterThan(0);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    await first.arrayBuffer();

    for (const path of ["/.well-known/jwks.json", "/api/v1/keys"]) {
      const again = await fetch(`${base}${path}`);
      expect(again.headers.get("etag")).toBe(etag);
      await again.arrayBuffer();
      for (const ifNoneMatch of [etag, `"something-else", ${etag}`]) {
        const notModified = await fetch(`${base}${path}`, { headers: { "if-none-match": ifNoneMatch } });
        expect({ path, ifNoneMatch, status: notModified.status }).toEqual({ path, ifNoneMatch, status: 304 });
        expect(await notModified.text()).toBe("");
        expect(notModified.headers.get("etag")).toBe(etag);
        expect(notModified.headers.get("cache-control")).toBe(cacheControl);
      }
      const otherTag = await fetch(`${base}${path}`, { headers: { "if-none-match": '"not-the-etag"' } });
      expect(otherTag.status).toBe(200);
      expect(await otherTag.json()).toEqual(jwks);
    }
  });
});

describe("validate answers are signed, whatever the code", () => {
  /** Validates `body` with a fresh nonce; the answer must be signed, 200, carry `code` and echo the nonce. */
  async function signedCode(
    body: Record<string, unknown>,
    code: string,
    headers: Record<string, string> = {},
  ) {
    const sent = nonce();
    const message = await expectSigned(await validate({ ...body, nonce: sent }, headers), {
      status: 200,
      contentType: JSON_TYPE,
    });
    const answer = bodyJson(message);
    expect(answer).toMatchObject({ code, valid: code === "VALID", nonce: sent });
    expect(answer.ts).toMatch(ISO);
    return answer;
  }

  test("NOT_FOUND", async () => {
    const answer = await signedCode({ key: "00000-00000-00000-00000-00000" }, "NOT_FOUND");
    expect(answer).toMatchObject({ license: null, ips: { count: 0, max: 0 } });
  });

  test("REVOKED", async () => {
    const license = await newLicense();
    const revoked = await fetch(`${base}/api/v1/licenses/${license.id}`, {
      method: "DELETE",
      headers: { "x-api-key": globalKey },
    });
    expect(revoked.status).toBe(204);
    const answer = await signedCode({ key: license.key }, "REVOKED");
    expect(answer.license.id).toBe(license.id);
  });

  test("EXPIRED", async () => {
    const license = await newLicense({ expires: "2020-01-01T00:00:00Z" });
    const answer = await signedCode({ key: license.key }, "EXPIRED");
    expect(answer.detail).toBe("This license expired at 2020-01-01T00:00:00.000Z.");
  });

  test("PRODUCT_MISMATCH", async () => {
    const license = await newLicense();
    const answer = await signedCode({ key: license.key, productId: String(productB.id) }, "PRODUCT_MISMATCH");
    expect(answer.license.productId).toBe(String(productA.id));
  });

  test("TOO_MANY_IPS", async () => {
    const license = await newLicense({ maxIps: 1 });
    await signedCode({ key: license.key, ip: "192.0.2.1" }, "VALID", { "x-api-key": globalKey });
    const answer = await signedCode({ key: license.key }, "TOO_MANY_IPS");
    expect(answer.ips).toEqual({ count: 1, max: 1 });
  });

  test("VALID", async () => {
    const license = await newLicense({ maxIps: 2 });
    const answer = await signedCode({ key: license.key, productId: String(productA.id) }, "VALID");
    expect(answer).toMatchObject({
      license: { id: license.id, key: license.key },
      ips: { count: 1, max: 2 },
    });
  });

  test("two answers to the same request differ only as the body does: each is signed over its own bytes", async () => {
    const license = await newLicense({ maxIps: 2 });
    const [one, two] = await Promise.all([
      validate({ key: license.key, nonce: "same" }).then(readSigned),
      validate({ key: license.key, nonce: "other" }).then(readSigned),
    ]);
    expect(one.headers["content-digest"]).not.toBe(two.headers["content-digest"]);
    expect(one.headers.signature).not.toBe(two.headers.signature);
    expect((await verifyAnswer(one, jwks)).ok).toBe(true);
    expect((await verifyAnswer(two, jwks)).ok).toBe(true);
    // Swapping the bodies of two genuine answers is caught.
    expect(await verifyAnswer({ ...one, body: two.body }, jwks)).toMatchObject({
      digestOk: false,
      ok: false,
    });
  });
});

describe("error answers are signed too", () => {
  test("422: a body the schema refuses", async () => {
    const message = await expectSigned(await validate({ nonce: nonce() }), {
      status: 422,
      contentType: JSON_TYPE,
    });
    expect(bodyJson(message)).toEqual({
      message: "The key field is required.",
      errors: { key: ["The key field is required."] },
    });
  });

  test("400: a body that is not JSON", async () => {
    const message = await expectSigned(await validate('{"key": "unterminated'), {
      status: 400,
      contentType: JSON_TYPE,
    });
    expect(bodyJson(message)).toEqual({ message: "The request body could not be parsed as JSON." });
  });

  test("401: a body ip with an x-api-key that does not exist", async () => {
    const message = await expectSigned(
      await validate({ key: "00000-00000-00000-00000-00000", ip: "192.0.2.7" }, { "x-api-key": "not-a-key" }),
      { status: 401, contentType: JSON_TYPE },
    );
    expect(bodyJson(message)).toEqual({ message: "Invalid API key." });
  });

  test("checkout 422: a ttl below the minimum", async () => {
    const license = await newLicense();
    const message = await expectSigned(await checkout({ key: license.key, ttl: 60 }), {
      status: 422,
      contentType: JSON_TYPE,
    });
    expect(bodyJson(message)).toMatchObject({ errors: { ttl: [expect.any(String)] } });
  });
});

describe("checkout answers", () => {
  test("valid: signed, with the license file, itself signed by the same published key", async () => {
    const license = await newLicense({ maxIps: 2 });
    const sent = nonce();
    const message = await expectSigned(await checkout({ key: license.key, nonce: sent }), {
      status: 200,
      contentType: JSON_TYPE,
    });
    const answer = bodyJson(message);
    expect(answer).toMatchObject({ valid: true, code: "VALID", nonce: sent, license: { id: license.id } });
    expect(answer.license_file).toMatch(
      /^-----BEGIN DEPOT LICENSE FILE-----\n[\s\S]+\n-----END DEPOT LICENSE FILE-----\n?$/,
    );
    expect(answer.license_file_expires_at).toMatch(ISO);
    const jws = answer.license_file
      .split("\n")
      .filter((line: string) => !line.startsWith("-----"))
      .join("");
    const { protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks));
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", kid: (await verifyAnswer(message, jwks)).kid });
  });

  test("invalid: signed, without a license file", async () => {
    const sent = nonce();
    const message = await expectSigned(
      await checkout({ key: "00000-00000-00000-00000-00000", nonce: sent }),
      {
        status: 200,
        contentType: JSON_TYPE,
      },
    );
    const answer = bodyJson(message);
    expect(answer).toMatchObject({ valid: false, code: "NOT_FOUND", nonce: sent });
    expect(Object.keys(answer)).not.toContain("license_file");
    expect(Object.keys(answer)).not.toContain("license_file_expires_at");
  });
});

describe("an answer changed in transit is rejected", () => {
  let genuine: SignedMessage;
  let sentNonce: string;

  beforeAll(async () => {
    const license = await newLicense({ maxIps: 5 });
    sentNonce = nonce();
    genuine = await readSigned(await validate({ key: license.key, nonce: sentNonce }));
    expect(bodyJson(genuine).code).toBe("VALID");
  });

  /** `genuine` with some headers replaced. */
  const withHeaders = (changes: Record<string, string>): SignedMessage => ({
    ...genuine,
    headers: { ...genuine.headers, ...changes },
  });
  /** `genuine` with `Signature-Input` rewritten by `edit`. */
  const withInput = (edit: (input: string) => string) =>
    withHeaders({ "signature-input": edit(genuine.headers["signature-input"] ?? "") });

  test("the untouched answer verifies (the baseline the others change)", async () => {
    expect(await verifyAnswer(genuine, jwks)).toMatchObject({ digestOk: true, signatureOk: true, ok: true });
  });

  test("(a) one byte of the body: the digest no longer matches", async () => {
    const body = new Uint8Array(genuine.body);
    const at = new TextDecoder().decode(body).indexOf(sentNonce) + sentNonce.length - 1;
    body[at] = body[at] === 0x30 ? 0x31 : 0x30;
    expect(body).not.toEqual(genuine.body);
    expect(await verifyAnswer({ ...genuine, body }, jwks)).toMatchObject({ digestOk: false, ok: false });
  });

  test("(b) the status: the signature fails", async () => {
    for (const status of [201, 203, 400]) {
      const verdict = await verifyAnswer({ ...genuine, status }, jwks);
      expect({ status, ...verdict }).toMatchObject({ status, digestOk: true, signatureOk: false, ok: false });
    }
  });

  test("(c) the content type: the signature fails", async () => {
    for (const contentType of ["text/plain", "application/json; charset=utf-8", "text/html"]) {
      expect(contentType).not.toBe(genuine.headers["content-type"]);
      const verdict = await verifyAnswer(withHeaders({ "content-type": contentType }), jwks);
      expect({ contentType, ...verdict }).toMatchObject({ contentType, signatureOk: false, ok: false });
    }
  });

  test("(d) a rewritten body with a recomputed Content-Digest: only the signature can tell, and does", async () => {
    const forged = new TextEncoder().encode(
      JSON.stringify({ ...bodyJson(genuine), ips: { count: 0, max: 10_000 }, detail: "forged" }),
    );
    const verdict = await verifyAnswer(
      { ...genuine, body: forged, headers: { ...genuine.headers, "content-digest": sha256Digest(forged) } },
      jwks,
    );
    expect(verdict).toMatchObject({ digestOk: true, signatureOk: false, ok: false });
  });

  test("(d') a NOT_FOUND answer turned VALID, digest recomputed: rejected", async () => {
    const notFound = await readSigned(await validate({ key: "00000-00000-00000-00000-00000", nonce: "n" }));
    const answer = bodyJson(notFound);
    expect(answer.code).toBe("NOT_FOUND");
    const forged = new TextEncoder().encode(
      JSON.stringify({ ...answer, valid: true, code: "VALID", detail: "This license is valid." }),
    );
    const verdict = await verifyAnswer(
      { ...notFound, body: forged, headers: { ...notFound.headers, "content-digest": sha256Digest(forged) } },
      jwks,
    );
    expect(verdict).toMatchObject({ digestOk: true, signatureOk: false, ok: false });
  });

  test("(e) the created parameter: the signature fails", async () => {
    const created = (await verifyAnswer(genuine, jwks)).created ?? 0;
    const verdict = await verifyAnswer(
      withInput((input) => input.replace(`;created=${created};`, `;created=${created - 60};`)),
      jwks,
    );
    expect(verdict.created).toBe(created - 60);
    expect(verdict).toMatchObject({ digestOk: true, signatureOk: false, ok: false });
  });

  test("(e) the keyid, naming another published key: the signature fails", async () => {
    const other = impostorJwk();
    const both: Jwks = { keys: [...jwks.keys, other] };
    const verdict = await verifyAnswer(
      withInput((input) => input.replace(/;keyid="[^"]*"/, `;keyid="${other.kid}"`)),
      both,
    );
    expect(verdict).toMatchObject({ kid: other.kid, digestOk: true, signatureOk: false, ok: false });
  });

  test("(e) the keyid, naming no published key: nothing to verify with, rejected", async () => {
    const verdict = await verifyAnswer(
      withInput((input) => input.replace(/;keyid="[^"]*"/, ';keyid="no-such-key"')),
      jwks,
    );
    expect(verdict).toMatchObject({ kid: "no-such-key", signatureOk: false, ok: false });
  });

  test("the covered components or the algorithm changed, the signature bytes flipped, or headers dropped: rejected", async () => {
    const variants: Record<string, SignedMessage> = {
      "fewer components": withInput((input) => input.replace(' "content-digest"', "")),
      "alg hmac-sha256": withInput((input) => input.replace('alg="ed25519"', 'alg="hmac-sha256"')),
      "label renamed": withInput((input) => input.replace(/^depot=/, "sig=")),
      "signature bit flipped": withHeaders({
        signature: `depot=:${flipFirstBit(genuine.headers.signature ?? "")}:`,
      }),
      "no Signature": { ...genuine, headers: without(genuine.headers, "signature") },
      "no Signature-Input": { ...genuine, headers: without(genuine.headers, "signature-input") },
      "no Content-Digest": { ...genuine, headers: without(genuine.headers, "content-digest") },
    };
    for (const [name, message] of Object.entries(variants)) {
      const verdict = await verifyAnswer(message, jwks);
      expect({ name, ok: verdict.ok }).toEqual({ name, ok: false });
    }
  });

  test("checked against a key set that does not hold its key, a genuine answer fails", async () => {
    const kid = (await verifyAnswer(genuine, jwks)).kid ?? "";
    // No key with that kid at all.
    expect(await verifyAnswer(genuine, { keys: [impostorJwk()] })).toMatchObject({
      kid,
      signatureOk: false,
      ok: false,
    });
    expect(await verifyAnswer(genuine, { keys: [] })).toMatchObject({ signatureOk: false, ok: false });
    // Another key published under depot's kid.
    const impostor = { ...impostorJwk(), kid };
    expect(await verifyAnswer(genuine, { keys: [impostor] })).toMatchObject({
      kid,
      digestOk: true,
      signatureOk: false,
      ok: false,
    });
  });

  test("an answer forged with another key under depot's kid is rejected; the verifier does accept that key's own signatures", async () => {
    const kid = (await verifyAnswer(genuine, jwks)).kid ?? "";
    const { privateKey, jwk } = newKeyPair();
    const body = new TextEncoder().encode(JSON.stringify({ ...bodyJson(genuine), detail: "forged" }));
    const forged = await httpbis.signMessage(
      {
        key: { id: kid, alg: "ed25519", sign: async (data) => sign(null, data, privateKey) },
        name: "depot",
        fields: ["@status", "content-type", "content-digest"],
        params: ["created", "keyid", "alg"],
      },
      {
        status: 200,
        headers: { "content-type": "application/json", "content-digest": sha256Digest(body) },
      },
    );
    const message: SignedMessage = {
      status: forged.status,
      headers: Object.fromEntries(
        Object.entries(forged.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
      ),
      body,
    };
    expect(await verifyAnswer(message, jwks)).toMatchObject({ kid, digestOk: true, signatureOk: false });
    // The same message against a key set that publishes the forger's key under that kid verifies:
    // the rejection above is the key's doing, not a verifier that refuses everything.
    expect(await verifyAnswer(message, { keys: [{ ...jwk, kid }] })).toMatchObject({ kid, ok: true });
  });
});

function newKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const { x = "" } = publicKey.export({ format: "jwk" });
  const jwk: Jwk = {
    kty: "OKP",
    crv: "Ed25519",
    x,
    kid: `impostor-${x.slice(0, 8)}`,
    alg: "EdDSA",
    use: "sig",
  };
  return { privateKey, jwk };
}

const impostorJwk = () => newKeyPair().jwk;

function flipFirstBit(signatureHeader: string): string {
  const bytes = Buffer.from(/^depot=:(.*):$/.exec(signatureHeader)?.[1] ?? "", "base64");
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  return bytes.toString("base64");
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _, ...rest } = headers;
  return rest;
}
