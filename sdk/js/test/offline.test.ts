// What needs no server: the configuration, the fingerprint, the offline activation request, and
// license files verified offline (signed here by a key the client pins).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import {
  Client,
  LicenseFileError,
  machineFingerprint,
  parseJwks,
  UnverifiableError,
  VERSION,
} from "depot-client";
import { jwksOf, licenseFile, makeKey } from "./helpers/signer.js";

const SERVER = "https://licenses.example.com";
const KEY = "ABCDE-FGHIJ-KLMNO-PQRST-UVWXY";
const key = await makeKey("test-key");
const other = await makeKey("other-key");
const client = new Client({ server: `${SERVER}/`, productId: "7", jwks: jwksOf(key) });

describe("configuration", () => {
  test("the version is package.json's", () => {
    const manifest = JSON.parse(
      readFileSync(createRequire(import.meta.url).resolve("depot-client/package.json"), "utf8"),
    );
    assert.equal(VERSION, manifest.version);
  });

  test("the server loses its trailing slash, the product id becomes a string", () => {
    assert.equal(client.server, SERVER);
    assert.equal(new Client({ server: SERVER, productId: 7, jwks: jwksOf(key) }).productId, "7");
  });

  test("a client without pinned keys (or fetchJwks), a server or a product is a TypeError", () => {
    assert.throws(() => new Client({ server: SERVER, productId: "1" }), /jwks is required/);
    assert.throws(
      () => new Client({ server: "licenses.example.com", productId: "1", fetchJwks: true }),
      TypeError,
    );
    assert.throws(() => new Client({ server: SERVER, productId: "one", fetchJwks: true }), /productId/);
    assert.throws(() => new Client({ server: SERVER, productId: "1", jwks: "{" }), /the JWKS is not JSON/);
    assert.throws(
      () => new Client({ server: SERVER, productId: "1", timeout: -1, fetchJwks: true }),
      /timeout/,
    );
  });

  test("parseJwks keeps only Ed25519 signing keys", () => {
    const rsa = { kty: "RSA", n: "AQAB", e: "AQAB", kid: "rsa" };
    const encryption = { ...key.jwk, kid: "enc", use: "enc" };
    const keys = parseJwks({ keys: [rsa, encryption, key.jwk] });
    assert.deepEqual(keys, [{ kty: "OKP", crv: "Ed25519", x: key.jwk.x, kid: "test-key" }]);
    assert.throws(() => parseJwks({ keys: [rsa] }), /no Ed25519 signing key/);
  });

  test("keys() lists the pinned set", async () => {
    assert.deepEqual(
      (await client.keys()).map((k) => k.kid),
      ["test-key"],
    );
  });
});

describe("machineFingerprint", () => {
  test("the contract's test vector", async () => {
    assert.equal(
      await machineFingerprint("1", { machineId: "0123456789abcdef0123456789abcdef" }),
      "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78",
    );
    // Whitespace around the id (a file's newline) does not change it; another product does.
    assert.equal(
      await machineFingerprint(1, { machineId: " 0123456789abcdef0123456789abcdef\n" }),
      "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78",
    );
    assert.notEqual(
      await machineFingerprint("2", { machineId: "0123456789abcdef0123456789abcdef" }),
      "bee1603142b8ed5996fe832fa4faa1d37b91f33a63af6e45c18f9fbee1adaf78",
    );
  });

  test("this machine's: /etc/machine-id on Linux, stable across calls", async (t) => {
    if (process.platform !== "linux") return t.skip("Linux only");
    const first = await machineFingerprint("1");
    assert.match(first, /^[0-9a-f]{64}$/);
    assert.equal(await machineFingerprint("1"), first);
    const id = readFileSync("/etc/machine-id", "utf8").trim();
    assert.equal(first, await machineFingerprint("1", { machineId: id }));
  });
});

describe("offlineActivationRequest", () => {
  test("base64 of the request object, absent fields left out", () => {
    const text = client.offlineActivationRequest(KEY, "fp-1", { name: "Vault ✓", hostname: "vault" });
    assert.match(text, /^[A-Za-z0-9+/]+=*$/);
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
    assert.equal(decoded, `{"v":1,"key":"${KEY}","fingerprint":"fp-1","name":"Vault ✓","hostname":"vault"}`);
  });
});

describe("verifyLicenseFile", () => {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: SERVER,
    sub: "6f1c1d7e-0000-4000-8000-000000000001",
    iat: now - 60,
    exp: now + 3600,
    key: KEY,
    product_id: "7",
    expires: null,
    fingerprint: "fp-1",
    machine_id: "8a1c1d7e-0000-4000-8000-000000000002",
  };
  const refused = async (text: string | Promise<string>, check: string, message: RegExp, options = {}) => {
    const error = await client.verifyLicenseFile(await text, options).then(
      () => assert.fail("the file verified"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof LicenseFileError, String(error));
    // A file that does not hold is unverifiable, as every library says it (sdk/README.md).
    assert.ok(error instanceof UnverifiableError, String(error));
    assert.equal(error.check, check);
    assert.match(error.message, message);
  };

  test("a good file: its claims", async () => {
    const file = await client.verifyLicenseFile(await licenseFile(key, claims), {
      key: KEY,
      fingerprint: "fp-1",
    });
    assert.equal(file.key, KEY);
    assert.equal(file.productId, "7");
    assert.equal(file.fingerprint, "fp-1");
    assert.equal(file.machineId, claims.machine_id);
    assert.equal(file.expiresAt.getTime(), claims.exp * 1000);
    assert.equal(file.licenseExpires, null);
    assert.equal(file.claims.sub, claims.sub);
  });

  test("one character of the payload changed: signature verification failed", async () => {
    const good = await licenseFile(key, claims);
    const [header, payload, signature] = good
      .replace(/-----[A-Z ]+-----/g, "")
      .replace(/\s+/g, "")
      .split(".");
    const i = (payload as string).length >> 1;
    const changed = `${payload?.slice(0, i)}${payload?.[i] === "A" ? "B" : "A"}${payload?.slice(i + 1)}`;
    await refused(`${header}.${changed}.${signature}`, "signature", /^signature verification failed$/);
  });

  test("signed by a key that is not pinned", () =>
    refused(licenseFile(other, claims), "key", /^the key "other-key" is not pinned$/));

  test("another machine, or none, when a fingerprint is asked", async () => {
    await refused(licenseFile(key, claims), "fingerprint", /^the file is bound to another machine$/, {
      fingerprint: "fp-2",
    });
    const { fingerprint: _, ...unbound } = claims;
    await refused(licenseFile(key, unbound), "fingerprint", /^the file is not bound to a machine$/, {
      fingerprint: "fp-1",
    });
  });

  test("expired with now; accepted within the grace", async () => {
    const text = await licenseFile(key, claims);
    const later = new Date((claims.exp + 10) * 1000);
    await refused(text, "expired", /^the file expired at /, { now: later });
    const file = await client.verifyLicenseFile(text, { now: later, graceSeconds: 60 });
    assert.equal(file.key, KEY);
    await refused(text, "expired", /^the file expired at /, { now: later, graceSeconds: 5 });
  });

  test("the license's own expiry is not extended by the grace", async () => {
    const expires = new Date((now - 10) * 1000).toISOString();
    await refused(licenseFile(key, { ...claims, expires }), "expired", /^the license expired at /, {
      graceSeconds: 86_400,
    });
  });

  test("issued by another server: the message names both", async () => {
    await refused(
      licenseFile(key, { ...claims, iss: "http://127.0.0.1:8080" }),
      "issuer",
      /^the file was issued by "http:\/\/127\.0\.0\.1:8080", expected "https:\/\/licenses\.example\.com"$/,
    );
  });

  test("not yet valid, another product, another key, another typ or alg", async () => {
    await refused(licenseFile(key, { ...claims, nbf: now + 3600 }), "not-yet-valid", /not valid before/);
    await refused(licenseFile(key, { ...claims, product_id: "8" }), "product", /another product/);
    await refused(licenseFile(key, claims), "license-key", /another license key/, { key: "OTHER-KEY" });
    await refused(licenseFile(key, claims, { typ: "JWT" }), "header", /typ/);
    await refused(licenseFile(key, claims, { alg: "ES256" }), "header", /alg/);
    await refused("not a license file", "format", /not a DEPOT LICENSE FILE/);
  });

  test("the key is compared as depot compares keys (case, surrounding space)", async () => {
    const file = await client.verifyLicenseFile(await licenseFile(key, claims), {
      key: ` ${KEY.toLowerCase()} `,
    });
    assert.equal(file.key, KEY);
  });
});
