import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash, createPublicKey, verify } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, errors, type JSONWebKeySet, jwtVerify } from "jose";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type LicenseWorld, licenseIn, licenseWorld } from "./helpers/factories.ts";

/**
 * Offline license files: `POST /api/v1/licenses/checkout` (validate, and when valid a file) and
 * `GET /api/v1/licenses/{id}/file`, through a listening server on a real database. Every file is
 * checked with jose against the keys the server publishes, never with depot's own signing code:
 * that is what software in the field does.
 */

// Each test makes a few requests to a real database; the machine may be busy with other files.
setDefaultTimeout(30_000);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const BEGIN = "-----BEGIN DEPOT LICENSE FILE-----";
const END = "-----END DEPOT LICENSE FILE-----";
const TYP = "depot-license+jwt";
const DAY = 86_400;
const UNKNOWN_ID = "0190f3a0-0000-7000-8000-000000000000";

interface License {
  id: string;
  key: string;
  userId: string;
  creatorId: string;
  productId: string;
  maxIps: number | null;
  expires: string | null;
}

let t: TestApp;
let base: string;
let appUrl: string;
let jwks: JSONWebKeySet & { keys: { kid: string; x: string }[] };
let w: LicenseWorld;

beforeAll(async () => {
  t = await startTestApp();
  w = await licenseWorld(t.ctx);
  base = t.listen();
  appUrl = t.ctx.config.appUrl;
  const response = await fetch(`${base}/.well-known/jwks.json`);
  expect(response.status).toBe(200);
  jwks = await readJson(response);
  expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
}, 60_000);
afterAll(() => t.close(), 30_000);

/** The API, over the socket, with the global key unless `key` says otherwise (null: none). */
const api = (path: string, init: { method?: string; body?: unknown; key?: string | null } = {}) =>
  fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.key === null ? {} : { "x-api-key": init.key ?? w.globalKey }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const newLicense = (fields: Record<string, unknown> = {}) => licenseIn(t, w, fields);

/** The license as the API reads it now. */
const read = async (id: string): Promise<License> =>
  (await readJson(await api(`/api/v1/licenses/${id}`))).licenses[0];

const revoke = async (license: License) =>
  expect((await api(`/api/v1/licenses/${license.id}`, { method: "DELETE" })).status).toBe(204);

/** A validate or checkout call as software makes it: no API key unless `headers` carries one. */
const post = (path: "validate" | "checkout", body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/v1/licenses/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const checkout = (body: unknown, headers: Record<string, string> = {}) => post("checkout", body, headers);
const validate = (body: unknown, headers: Record<string, string> = {}) => post("validate", body, headers);

const registeredIps = async (id: string): Promise<string[]> =>
  (await readJson(await api(`/api/v1/licenses/${id}/ips`))).ips
    .map((row: { ip: string }) => row.ip)
    .toSorted();

const fileOf = (id: string, query = "", key: string | null = w.globalKey) =>
  api(`/api/v1/licenses/${id}/file${query}`, { key });

/** The armour's shape: BEGIN line, lines of at most 64 characters, END line, final newline. */
function expectArmoured(file: string) {
  expect(file.endsWith(`${END}\n`)).toBe(true);
  const lines = file.slice(0, -1).split("\n");
  expect(lines[0]).toBe(BEGIN);
  expect(lines.at(-1)).toBe(END);
  expect(lines.length).toBeGreaterThanOrEqual(3);
  for (const line of lines.slice(1, -1)) {
    expect(line.length).toBeGreaterThan(0);
    expect(line.length).toBeLessThanOrEqual(64);
    expect(line).toMatch(/^[A-Za-z0-9_.-]+$/);
  }
}

/** What is left without the armour lines and whitespace: the compact JWS. */
const jwsOf = (file: string) => file.replace(BEGIN, "").replace(END, "").replace(/\s+/g, "");

const verifyFile = (file: string, options: { currentDate?: Date } = {}) =>
  jwtVerify(jwsOf(file), createLocalJWKSet(jwks), {
    typ: TYP,
    issuer: appUrl,
    algorithms: ["EdDSA"],
    ...options,
  });

/** Checks a file is well formed and verifies, and that its claims are exactly `license`'s. */
async function expectFileFor(file: string, license: License, issuedBetween: [number, number]) {
  expectArmoured(file);
  const jws = jwsOf(file);
  expect(jws.split(".")).toHaveLength(3);
  const { payload, protectedHeader } = await verifyFile(file);
  expect(protectedHeader).toEqual({ alg: "EdDSA", typ: TYP, kid: expect.any(String) });
  expect(decodeProtectedHeader(jws)).toEqual(protectedHeader);
  expect(jwks.keys.map((key) => key.kid)).toContain(protectedHeader.kid as string);
  expect(payload).toEqual({
    iss: appUrl,
    sub: license.id,
    iat: expect.any(Number),
    exp: expect.any(Number),
    key: license.key,
    product_id: license.productId,
    user_id: license.userId,
    creator_id: license.creatorId,
    max_ips: license.maxIps,
    expires: license.expires,
  });
  for (const claim of ["key", "product_id", "user_id", "creator_id"] as const)
    expect(typeof payload[claim]).toBe("string");
  expect(typeof payload.max_ips).toBe("number");
  const iat = payload.iat ?? 0;
  expect(Number.isInteger(iat)).toBe(true);
  expect(iat).toBeGreaterThanOrEqual(Math.floor(issuedBetween[0] / 1000));
  expect(iat).toBeLessThanOrEqual(Math.ceil(issuedBetween[1] / 1000));
  return { payload: payload as typeof payload & { iat: number; exp: number }, kid: protectedHeader.kid };
}

/** Checkout, expecting a valid answer with a file; the file's claims checked against the license. */
async function checkoutFile(license: License, extra: Record<string, unknown> = {}) {
  const before = Date.now();
  const response = await checkout({ key: license.key, ...extra });
  const after = Date.now();
  expect(response.status).toBe(200);
  const body = await readJson(response);
  expect(body.code).toBe("VALID");
  expect(typeof body.license_file).toBe("string");
  const { payload } = await expectFileFor(body.license_file, await read(license.id), [before, after]);
  expect(body.license_file_expires_at).toMatch(ISO);
  expect(body.license_file_expires_at).toBe(new Date(payload.exp * 1000).toISOString());
  return { body, payload };
}

/** The RFC 9530 digest of `body`, computed here with node:crypto. */
const sha256Digest = (body: Uint8Array) => `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;

/**
 * The response's RFC 9421 signature, checked here: the digest is of the bytes received, and the
 * Ed25519 signature over the signature base verifies with the published key it names.
 */
function expectSigned(response: Response, body: Uint8Array) {
  const digest = response.headers.get("content-digest");
  expect(digest).toBe(sha256Digest(body));
  const input = response.headers.get("signature-input") ?? "";
  const match =
    /^depot=(\("@status" "content-type" "content-digest"\);created=\d+;keyid="([^"]+)";alg="ed25519")$/.exec(
      input,
    );
  expect(match).not.toBeNull();
  const [, params = "", keyid = ""] = match ?? [];
  const jwk = jwks.keys.find((key) => key.kid === keyid);
  expect(jwk).toBeDefined();
  const signature = /^depot=:([A-Za-z0-9+/=]+):$/.exec(response.headers.get("signature") ?? "")?.[1] ?? "";
  const signatureBase =
    `"@status": ${response.status}\n"content-type": ${response.headers.get("content-type")}\n` +
    `"content-digest": ${digest}\n"@signature-params": ${params}`;
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk?.x ?? "" }, format: "jwk" });
  expect(verify(null, Buffer.from(signatureBase), publicKey, Buffer.from(signature, "base64"))).toBe(true);
}

/** Reads the body once, checks the signature over those bytes, and returns it as text. */
async function signedText(response: Response): Promise<string> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  expectSigned(response, bytes);
  return new TextDecoder().decode(bytes);
}

describe("POST /api/v1/licenses/checkout", () => {
  test("a valid key: the validate answer plus license_file and license_file_expires_at; the file verifies", async () => {
    const license = await newLicense({ maxIps: 2, expires: "2099-01-01T00:00:00Z" });
    const before = Date.now();
    const response = await checkout({ key: license.key, productId: String(w.productA.id), nonce: "n-7" });
    const after = Date.now();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const text = await signedText(response);
    const body = JSON.parse(text);
    expect(body).toEqual({
      valid: true,
      code: "VALID",
      detail: "This license is valid.",
      ts: expect.stringMatching(ISO),
      nonce: "n-7",
      license: await read(license.id),
      ips: { count: 1, max: 2 },
      license_file: expect.any(String),
      license_file_expires_at: expect.stringMatching(ISO),
    });

    // Apart from the file, exactly what /validate answers for the same request.
    const { license_file, license_file_expires_at, ...rest } = body;
    const validated = await readJson(
      await validate({ key: license.key, productId: String(w.productA.id), nonce: "n-7" }),
    );
    expect(rest).toEqual({ ...validated, ts: expect.stringMatching(ISO) });

    const { payload } = await expectFileFor(license_file, license, [before, after]);
    expect(payload.expires).toBe("2099-01-01T00:00:00.000Z");
    expect(license_file_expires_at).toBe(new Date(payload.exp * 1000).toISOString());
  });

  test("a license that never expires: the expires claim is null", async () => {
    const license = await newLicense();
    expect(license.expires).toBeNull();
    const { payload } = await checkoutFile(license);
    expect(payload.expires).toBeNull();
    expect(payload.exp - payload.iat).toBe(30 * DAY);
  });

  describe("an invalid key: the same answer as /validate, and no file", () => {
    /** Checkout, then validate the same way: equal answers (but the time), no license_file keys. */
    async function expectSameAsValidate(body: Record<string, unknown>, code: string) {
      const response = await checkout(body);
      expect(response.status).toBe(200);
      const text = await signedText(response);
      const answer = JSON.parse(text);
      expect(answer.code).toBe(code);
      expect(answer.valid).toBe(false);
      expect(Object.keys(answer).toSorted()).toEqual(
        ["valid", "code", "detail", "ts", "nonce", "license", "ips"].toSorted(),
      );
      expect(text).not.toContain("license_file");
      const { ttl: _, ...validateBody } = body;
      const validated = await readJson(await validate(validateBody));
      expect(validated.code).toBe(code);
      expect(answer).toEqual({ ...validated, ts: expect.stringMatching(ISO) });
      return answer;
    }

    test("NOT_FOUND", async () => {
      const answer = await expectSameAsValidate(
        { key: "00000-00000-00000-00000-00000", nonce: "nf" },
        "NOT_FOUND",
      );
      expect(answer).toMatchObject({ nonce: "nf", license: null, ips: { count: 0, max: 0 } });
    });

    test("REVOKED", async () => {
      const license = await newLicense({ maxIps: 3 });
      await revoke(license);
      const answer = await expectSameAsValidate({ key: license.key, ttl: 3600 }, "REVOKED");
      expect(answer.license).toEqual(await read(license.id));
      expect(await registeredIps(license.id)).toEqual([]);
    });

    test("EXPIRED", async () => {
      const license = await newLicense({ maxIps: 3, expires: new Date(Date.now() - 1000).toISOString() });
      const answer = await expectSameAsValidate({ key: license.key }, "EXPIRED");
      expect(answer.detail).toBe(`This license expired at ${license.expires}.`);
      expect(await registeredIps(license.id)).toEqual([]);
    });

    test("PRODUCT_MISMATCH", async () => {
      const license = await newLicense({ maxIps: 3 });
      await expectSameAsValidate({ key: license.key, productId: String(w.productB.id) }, "PRODUCT_MISMATCH");
      expect(await registeredIps(license.id)).toEqual([]);
    });

    test("TOO_MANY_IPS", async () => {
      const license = await newLicense({ maxIps: 1 });
      const vouched = await checkout({ key: license.key, ip: "192.0.2.1" }, { "x-api-key": w.globalKey });
      expect((await readJson(vouched)).code).toBe("VALID");
      const answer = await expectSameAsValidate({ key: license.key, nonce: "full" }, "TOO_MANY_IPS");
      expect(answer).toMatchObject({ nonce: "full", ips: { count: 1, max: 1 } });
      expect(await registeredIps(license.id)).toEqual(["192.0.2.1"]);
    });
  });

  describe("addresses are counted exactly as /validate counts them", () => {
    test("the caller's address is registered; a second address beyond maxIps gets TOO_MANY_IPS and no file", async () => {
      const license = await newLicense({ maxIps: 1 });
      await checkoutFile(license);
      expect(await registeredIps(license.id)).toEqual(["127.0.0.1"]);
      // The same address again: still valid, still one address.
      const { body } = await checkoutFile(license, { nonce: "again" });
      expect(body).toMatchObject({ nonce: "again", ips: { count: 1, max: 1 } });

      const other = await checkout(
        { key: license.key, ip: "192.0.2.50", nonce: "n2" },
        { "x-api-key": w.keyA },
      );
      expect(other.status).toBe(200);
      const refused = await readJson(other);
      expect(refused).toMatchObject({
        valid: false,
        code: "TOO_MANY_IPS",
        nonce: "n2",
        ips: { count: 1, max: 1 },
      });
      expect("license_file" in refused).toBe(false);
      expect("license_file_expires_at" in refused).toBe(false);
      expect(await registeredIps(license.id)).toEqual(["127.0.0.1"]);
    });

    test("a checkout takes an address a later validate then counts, and the other way round", async () => {
      const license = await newLicense({ maxIps: 2 });
      const first = await checkout({ key: license.key, ip: "192.0.2.1" }, { "x-api-key": w.globalKey });
      expect(await readJson(first)).toMatchObject({ code: "VALID", ips: { count: 1, max: 2 } });
      const second = await validate({ key: license.key, ip: "192.0.2.2" }, { "x-api-key": w.globalKey });
      expect(await readJson(second)).toMatchObject({ code: "VALID", ips: { count: 2, max: 2 } });
      const third = await checkout({ key: license.key, ip: "192.0.2.3" }, { "x-api-key": w.globalKey });
      expect(await readJson(third)).toMatchObject({ code: "TOO_MANY_IPS", ips: { count: 2, max: 2 } });
      // A registered address (named by a key, or the caller's own) still gets its file.
      const known = await readJson(
        await checkout({ key: license.key, ip: "192.0.2.2" }, { "x-api-key": w.globalKey }),
      );
      expect(known).toMatchObject({ code: "VALID", license_file: expect.stringContaining(BEGIN) });
      expect(await registeredIps(license.id)).toEqual(["192.0.2.1", "192.0.2.2"]);
    });

    test("a body ip without an x-api-key → 422 errors.ip; with another creator's key → 403; nothing registered", async () => {
      const license = await newLicense({ maxIps: 3 });
      const bare = await checkout({ key: license.key, ip: "192.0.2.10" });
      expect(bare.status).toBe(422);
      expect(await readJson(bare)).toEqual({
        message: "The ip field is only accepted with an x-api-key.",
        errors: { ip: ["The ip field is only accepted with an x-api-key."] },
      });
      const foreign = await checkout({ key: license.key, ip: "192.0.2.10" }, { "x-api-key": w.keyB });
      expect(foreign.status).toBe(403);
      expect(await readJson(foreign)).toEqual({ message: "This API key may not act for this license." });
      const wrong = await checkout({ key: license.key, ip: "192.0.2.10" }, { "x-api-key": "dpk_wrong" });
      expect(wrong.status).toBe(401);
      expect(await readJson(wrong)).toEqual({ message: "Invalid API key." });
      expect(await registeredIps(license.id)).toEqual([]);
    });

    test("the nonce is echoed as sent, null when absent", async () => {
      const license = await newLicense();
      for (const nonce of ["abc", "ünï-🔑", ""]) {
        const body = await readJson(await checkout({ key: license.key, nonce }));
        expect({ nonce: body.nonce, code: body.code }).toEqual({ nonce, code: "VALID" });
      }
      expect((await readJson(await checkout({ key: license.key }))).nonce).toBeNull();
    });
  });
});

describe("when a file expires: the earlier of now + ttl and the license's expiry", () => {
  test("default ttl: 30 days", async () => {
    const { payload } = await checkoutFile(await newLicense());
    expect(payload.exp - payload.iat).toBe(2_592_000);
  });

  test.each([
    [3600, "an hour (the least)"],
    [7200, "two hours"],
    [31_536_000, "a year (the most)"],
  ])("ttl %d: %s", async (ttl) => {
    const { payload } = await checkoutFile(await newLicense(), { ttl });
    expect(payload.exp - payload.iat).toBe(ttl);
  });

  test("a license expiring in 2 days: the default file ends with the license (to the second), a 1 h one after 1 h", async () => {
    // Milliseconds on purpose: the file's exp is whole seconds, never after the license's end.
    const expires = new Date(Date.now() + 2 * DAY * 1000 + 567).toISOString();
    const license = await newLicense({ expires });
    expect(license.expires).toBe(expires);
    const endOfLicense = Math.floor(Date.parse(expires) / 1000);

    const byDefault = await checkoutFile(license);
    expect(byDefault.payload.exp).toBe(endOfLicense);
    expect(byDefault.payload.expires).toBe(expires);
    expect(byDefault.body.license_file_expires_at).toBe(new Date(endOfLicense * 1000).toISOString());

    const yearLong = await checkoutFile(license, { ttl: 31_536_000 });
    expect(yearLong.payload.exp).toBe(endOfLicense);

    const hour = await checkoutFile(license, { ttl: 3600 });
    expect(hour.payload.exp - hour.payload.iat).toBe(3600);

    // The file route follows the same rule.
    const response = await fileOf(license.id);
    expect(response.status).toBe(200);
    const { payload } = await verifyFile(await response.text());
    expect(payload.exp).toBe(endOfLicense);
  });

  test.each([
    [3599, "The ttl field must be at least 3600."],
    [31_536_001, "The ttl field must not be greater than 31536000."],
    [0, "The ttl field must be at least 3600."],
    [-1, "The ttl field must be at least 3600."],
    ["3600", "The ttl field must be an integer."],
    [1.5, "The ttl field must be an integer."],
    [null, "The ttl field must be an integer."],
  ])("ttl %p → 422 errors.ttl, no file, no address registered", async (ttl, message) => {
    const license = await newLicense({ maxIps: 3 });
    const response = await checkout({ key: license.key, ttl, nonce: "x" });
    expect(response.status).toBe(422);
    const text = await signedText(response);
    expect(JSON.parse(text)).toEqual({ message, errors: { ttl: [message] } });
    expect(text).not.toContain("license_file");
    expect(text).not.toContain(BEGIN);
    // Schema validation comes before any check: the request counted nothing.
    expect(await registeredIps(license.id)).toEqual([]);
  });
});

describe("GET /api/v1/licenses/{id}/file", () => {
  test("200 application/x-pem-file, an attachment named after the license, signed; the body verifies", async () => {
    const license = await newLicense({ maxIps: 4, expires: "2098-06-30T12:00:00.250Z" });
    for (const key of [w.globalKey, w.keyA]) {
      const before = Date.now();
      const response = await fileOf(license.id, "", key);
      const after = Date.now();
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/x-pem-file");
      expect(response.headers.get("content-disposition")).toBe(
        `attachment; filename="depot-license-${license.id}.lic"`,
      );
      const file = await signedText(response);
      const { payload, kid } = await expectFileFor(file, license, [before, after]);
      expect(payload.exp - payload.iat).toBe(30 * DAY);
      // The answer and the file are signed by the same (active) key.
      expect(response.headers.get("signature-input")).toContain(`keyid="${kid}"`);
      expect(kid).toBe(jwks.keys[0]?.kid as string);
    }
    // Fetching a file neither registers an address nor changes the license.
    expect(await registeredIps(license.id)).toEqual([]);
    expect(await read(license.id)).toEqual(license);
  });

  test.each([
    ["7200", 7200],
    ["3600", 3600],
    ["31536000", 31_536_000],
  ])("?ttl=%s → exp − iat = %d", async (query, seconds) => {
    const license = await newLicense();
    const before = Date.now();
    const response = await fileOf(license.id, `?ttl=${query}`);
    const after = Date.now();
    expect(response.status).toBe(200);
    const { payload } = await expectFileFor(await signedText(response), license, [before, after]);
    expect(payload.exp - payload.iat).toBe(seconds);
  });

  test.each([
    ["abc", "The ttl field must be an integer."],
    ["10", "The ttl field must be at least 3600."],
    ["99999999999", "The ttl field must not be greater than 31536000."],
    ["3599", "The ttl field must be at least 3600."],
    ["31536001", "The ttl field must not be greater than 31536000."],
    ["-3600", "The ttl field must be an integer."],
    ["3600.5", "The ttl field must be an integer."],
    ["", "The ttl field must be an integer."],
  ])("?ttl=%s → 422 errors.ttl, no file", async (query, message) => {
    const license = await newLicense();
    const response = await fileOf(license.id, `?ttl=${query}`);
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("content-disposition")).toBeNull();
    const text = await signedText(response);
    expect(JSON.parse(text)).toEqual({ message, errors: { ttl: [message] } });
  });

  test("a revoked license → 409 naming the revocation; an expired one → 409; signed JSON, no file", async () => {
    const revoked = await newLicense();
    await revoke(revoked);
    const expired = await newLicense({ expires: new Date(Date.now() - 1000).toISOString() });
    for (const [license, message] of [
      [revoked, "This license has been revoked; it gets no license file."],
      [expired, "This license has expired; it gets no license file."],
    ] as const) {
      for (const query of ["", "?ttl=3600"]) {
        const response = await fileOf(license.id, query);
        expect({ id: license.id, status: response.status }).toEqual({ id: license.id, status: 409 });
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(response.headers.get("content-disposition")).toBeNull();
        const text = await signedText(response);
        expect(JSON.parse(text)).toEqual({ message });
        expect(text).not.toContain(BEGIN);
      }
    }
  });

  test("another creator's license with a creator-scoped key → 404, as GET /licenses/{id} answers", async () => {
    const license = await newLicense();
    const response = await fileOf(license.id, "", w.keyB);
    expect(response.status).toBe(404);
    const body = await readJson(response);
    expect(body).toEqual({ message: "License not found." });
    const byId = await api(`/api/v1/licenses/${license.id}`, { key: w.keyB });
    expect({ status: byId.status, body: await readJson(byId) }).toEqual({ status: 404, body });
  });

  test("an unknown id → 404; no key → 401; a wrong key → 401", async () => {
    for (const id of [UNKNOWN_ID, "abc"]) {
      const response = await fileOf(id);
      expect({ id, status: response.status }).toEqual({ id, status: 404 });
      expect(await readJson(response)).toEqual({ message: "License not found." });
    }
    const license = await newLicense();
    for (const key of [null, "dpk_wrong"]) {
      const response = await fileOf(license.id, "", key);
      expect({ key, status: response.status }).toEqual({ key, status: 401 });
      expect(response.headers.get("www-authenticate")).toBe("ApiKey");
      const body = await readJson(response);
      expect(body).toEqual({ message: expect.any(String) });
      expect(JSON.stringify(body)).not.toContain(BEGIN);
    }
  });

  test("a license revoked after its file was issued gets no new one by either route", async () => {
    const license = await newLicense();
    const { body } = await checkoutFile(license);
    expect((await fileOf(license.id)).status).toBe(200);
    await revoke(license);
    expect((await fileOf(license.id)).status).toBe(409);
    const again = await readJson(await checkout({ key: license.key }));
    expect(again.code).toBe("REVOKED");
    expect("license_file" in again).toBe(false);
    // The file already out there is a signed statement about the past: it still verifies offline.
    await verifyFile(body.license_file);
  });
});

describe("files that must not verify", () => {
  /** The file with the payload segment of its JWS changed by `change`, re-armoured. */
  function withPayload(file: string, change: (payload: string) => string) {
    const [header = "", payload = "", signature = ""] = jwsOf(file).split(".");
    const jws = `${header}.${change(payload)}.${signature}`;
    return `${BEGIN}\n${jws.match(/.{1,64}/g)?.join("\n")}\n${END}\n`;
  }

  test("one character of the payload changed → jose rejects the signature", async () => {
    const { body } = await checkoutFile(await newLicense());
    const file: string = body.license_file;
    const tampered = withPayload(file, (payload) => {
      const at = Math.floor(payload.length / 2);
      const swapped = payload[at] === "A" ? "B" : "A";
      return `${payload.slice(0, at)}${swapped}${payload.slice(at + 1)}`;
    });
    expect(tampered).not.toBe(file);
    expectArmoured(tampered);
    await expect(verifyFile(tampered)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    // The original still verifies: the rejection is the change's doing.
    await verifyFile(file);
  });

  test("claims rewritten to last longer or allow more addresses → rejected", async () => {
    const { body } = await checkoutFile(await newLicense({ maxIps: 1, expires: "2090-01-01T00:00:00Z" }));
    for (const edit of [
      (claims: Record<string, unknown>) => ({ ...claims, exp: (claims.exp as number) + 365 * DAY }),
      (claims: Record<string, unknown>) => ({ ...claims, max_ips: 1000 }),
      (claims: Record<string, unknown>) => ({ ...claims, expires: null }),
    ]) {
      const forged = withPayload(body.license_file, (payload) =>
        Buffer.from(JSON.stringify(edit(JSON.parse(Buffer.from(payload, "base64url").toString())))).toString(
          "base64url",
        ),
      );
      expect(forged).not.toBe(body.license_file);
      await expect(verifyFile(forged)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
    }
  });

  test("another license's payload under this file's signature → rejected", async () => {
    const one = (await checkoutFile(await newLicense())).body.license_file;
    const two = (await checkoutFile(await newLicense())).body.license_file;
    const spliced = withPayload(one, () => jwsOf(two).split(".")[1] ?? "");
    await expect(verifyFile(spliced)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  test("a file whose exp has passed: jose rejects it with an exp error (ttl 1 h, checked 2 h later)", async () => {
    const { body, payload } = await checkoutFile(await newLicense(), { ttl: 3600 });
    const issued = payload.iat * 1000;
    // Just before its end it still verifies…
    await verifyFile(body.license_file, { currentDate: new Date(issued + 59 * 60_000) });
    // …and after it, it does not.
    const late = verifyFile(body.license_file, { currentDate: new Date(issued + 2 * 3_600_000) });
    await expect(late).rejects.toBeInstanceOf(errors.JWTExpired);
    await expect(late).rejects.toMatchObject({
      code: "ERR_JWT_EXPIRED",
      claim: "exp",
      reason: "check_failed",
    });
  });

  test("a file bounded by its license's expiry stops verifying when the license ends", async () => {
    const expires = new Date(Date.now() + 2 * DAY * 1000).toISOString();
    const { body } = await checkoutFile(await newLicense({ expires }));
    await verifyFile(body.license_file, { currentDate: new Date(Date.parse(expires) - 60_000) });
    await expect(
      verifyFile(body.license_file, { currentDate: new Date(Date.parse(expires) + 60_000) }),
    ).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  test("checked as another issuer or another type, or against a key set without depot's key → rejected", async () => {
    const { body } = await checkoutFile(await newLicense());
    const jws = jwsOf(body.license_file);
    const options = { typ: TYP, issuer: appUrl, algorithms: ["EdDSA"] };
    const local = createLocalJWKSet(jwks);
    await expect(jwtVerify(jws, local, { ...options, issuer: "http://other.test" })).rejects.toMatchObject({
      code: "ERR_JWT_CLAIM_VALIDATION_FAILED",
      claim: "iss",
    });
    await expect(jwtVerify(jws, local, { ...options, typ: "JWT" })).rejects.toMatchObject({
      code: "ERR_JWT_CLAIM_VALIDATION_FAILED",
      claim: "typ",
    });
    const stranger = { kty: "OKP", crv: "Ed25519", x: Buffer.alloc(32, 7).toString("base64url"), kid: "x" };
    await expect(jwtVerify(jws, createLocalJWKSet({ keys: [stranger] }), options)).rejects.toBeInstanceOf(
      errors.JWKSNoMatchingKey,
    );
  });
});
