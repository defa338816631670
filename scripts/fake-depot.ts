/**
 * A fake depot for scripts/verify-examples.sh: what a cracker puts in depot's place (a hosts-file
 * entry, a proxy) so that the software hears "valid". It answers every POST in one of five ways:
 *
 *   unsigned    {"valid":true,"code":"VALID",…} about LICENSE_KEY, with no Signature headers
 *   forged      the same, signed by a key of its own but naming the real key's keyid
 *   replayed    a genuine signed VALID answer for LICENSE_KEY, recorded earlier (another nonce)
 *   swapped     relays the request to the real depot with the key replaced by LICENSE_KEY (the
 *               attacker's own license): a genuine, fresh, signed VALID with the caller's nonce,
 *               about another license
 *   self-keyed  a self-consistent fake: it publishes a JWKS with its own key (and its own kid), signs
 *               its made-up VALID answers with that key, and checkout hands out a license file signed
 *               by it too
 *
 * The first four serve a copy of the real JWKS, and the examples refuse them either way. A
 * self-keyed fake passes a verifier that takes its keys from the server it asks: only keys pinned
 * in the software (--jwks) refuse it.
 *
 *   bun scripts/fake-depot.ts MODE REAL_DEPOT_URL LICENSE_KEY PORT
 *
 * Prints "listening" once it answers.
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto";

const [mode, realUrl, licenseKey, port] = process.argv.slice(2);
if (
  !mode ||
  !["unsigned", "forged", "replayed", "swapped", "self-keyed"].includes(mode) ||
  !realUrl ||
  !licenseKey ||
  !port
) {
  console.error(
    "usage: bun scripts/fake-depot.ts unsigned|forged|replayed|swapped|self-keyed REAL_DEPOT_URL LICENSE_KEY PORT",
  );
  process.exit(2);
}

const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const ownUrl = `http://127.0.0.1:${port}`;
const x = publicKey.export({ format: "jwk" }).x as string;
// The RFC 7638 thumbprint, as depot names its keys: nothing in the JWKS gives the fake away.
const ownKid = createHash("sha256").update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest("base64url");
const jwksText =
  mode === "self-keyed"
    ? JSON.stringify({ keys: [{ kty: "OKP", crv: "Ed25519", x, kid: ownKid, alg: "EdDSA", use: "sig" }] })
    : await (await fetch(`${realUrl}/.well-known/jwks.json`)).text();
// forged: our key under the real keyid; self-keyed: our key under our own, which our JWKS publishes.
const signingKid: string = mode === "self-keyed" ? ownKid : JSON.parse(jwksText).keys[0].kid;

/** A genuine answer: status, headers and body bytes exactly as depot sent them. */
async function relay(path: string, request: Record<string, unknown>) {
  const response = await fetch(`${realUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  return {
    status: response.status,
    headers: new Headers(response.headers),
    body: await response.arrayBuffer(),
  };
}
const record = (path: string) => relay(path, { key: licenseKey, nonce: "recorded-earlier" });
const recorded =
  mode === "replayed"
    ? {
        validate: await record("/api/v1/licenses/validate"),
        checkout: await record("/api/v1/licenses/checkout"),
      }
    : null;

/** A license file as depot's checkout hands it out (a compact JWS), signed by our own key. */
function fakeLicenseFile(license: Record<string, unknown>, exp: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const header = part({ alg: "EdDSA", typ: "depot-license+jwt", kid: ownKid });
  const payload = part({
    iss: ownUrl,
    sub: license.id,
    iat: Math.floor(Date.now() / 1000),
    exp,
    key: license.key,
    product_id: license.productId,
    expires: null,
  });
  const jws = `${header}.${payload}.${sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString("base64url")}`;
  return `-----BEGIN DEPOT LICENSE FILE-----\n${jws.match(/.{1,64}/g)?.join("\n")}\n-----END DEPOT LICENSE FILE-----\n`;
}

function fakeAnswer(request: { nonce?: unknown; productId?: unknown }, checkout: boolean): Response {
  const now = new Date().toISOString();
  const license = {
    id: "00000000-0000-4000-8000-000000000000",
    userId: "1",
    creatorId: "1",
    // The product asked about: a fake says whatever the caller wants to hear.
    productId: typeof request.productId === "string" ? request.productId : "1",
    expires: null,
    maxIps: 99,
    key: licenseKey,
    createdAt: now,
    updatedAt: now,
  };
  const exp = Math.floor(Date.now() / 1000) + 30 * 86_400;
  const body = JSON.stringify({
    valid: true,
    code: "VALID",
    detail: "This license is valid.",
    ts: now,
    nonce: typeof request.nonce === "string" ? request.nonce : null,
    license,
    ips: { count: 1, max: 99 },
    ...(checkout && mode === "self-keyed"
      ? {
          license_file: fakeLicenseFile(license, exp),
          license_file_expires_at: new Date(exp * 1000).toISOString(),
        }
      : {}),
  });
  const headers = new Headers({ "content-type": "application/json" });
  if (mode === "forged" || mode === "self-keyed") {
    const digest = `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;
    const params = `("@status" "content-type" "content-digest");created=${Math.floor(Date.now() / 1000)};keyid="${signingKid}";alg="ed25519"`;
    const base = `"@status": 200\n"content-type": application/json\n"content-digest": ${digest}\n"@signature-params": ${params}`;
    headers.set("content-digest", digest);
    headers.set("signature-input", `depot=${params}`);
    headers.set("signature", `depot=:${sign(null, Buffer.from(base), privateKey).toString("base64")}:`);
  }
  return new Response(body, { headers });
}

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && (pathname === "/.well-known/jwks.json" || pathname === "/api/v1/keys")) {
      return new Response(jwksText, { headers: { "content-type": "application/json" } });
    }
    if (request.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await request.json().catch(() => ({}))) as { nonce?: unknown; productId?: unknown };
    if (recorded || mode === "swapped") {
      const {
        status,
        headers,
        body: bytes,
      } = recorded
        ? pathname.endsWith("/checkout")
          ? recorded.checkout
          : recorded.validate
        : await relay(pathname, { ...body, key: licenseKey });
      return new Response(bytes, { status, headers });
    }
    return fakeAnswer(body, pathname.endsWith("/checkout"));
  },
});
console.log("listening");
