/**
 * A fake depot for scripts/verify-examples.sh: what a cracker puts in depot's place (a hosts-file
 * entry, a proxy) so that the software hears "valid". It serves a copy of the real JWKS, and answers
 * every POST in one of four ways, all of which the verification examples must refuse:
 *
 *   unsigned  {"valid":true,"code":"VALID",…} about LICENSE_KEY, with no Signature headers
 *   forged    the same, signed by a key of its own but naming the real key's keyid
 *   replayed  a genuine signed VALID answer for LICENSE_KEY, recorded earlier (another nonce)
 *   swapped   relays the request to the real depot with the key replaced by LICENSE_KEY (the
 *             attacker's own license): a genuine, fresh, signed VALID with the caller's nonce,
 *             about another license
 *
 *   bun scripts/fake-depot.ts MODE REAL_DEPOT_URL LICENSE_KEY PORT
 *
 * Prints "listening" once it answers.
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto";

const [mode, realUrl, licenseKey, port] = process.argv.slice(2);
if (
  !mode ||
  !["unsigned", "forged", "replayed", "swapped"].includes(mode) ||
  !realUrl ||
  !licenseKey ||
  !port
) {
  console.error(
    "usage: bun scripts/fake-depot.ts unsigned|forged|replayed|swapped REAL_DEPOT_URL LICENSE_KEY PORT",
  );
  process.exit(2);
}

const jwksText = await (await fetch(`${realUrl}/.well-known/jwks.json`)).text();
const realKid: string = JSON.parse(jwksText).keys[0].kid;
const { privateKey } = generateKeyPairSync("ed25519");

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

function fakeAnswer(nonce: unknown): Response {
  const now = new Date().toISOString();
  const body = JSON.stringify({
    valid: true,
    code: "VALID",
    detail: "This license is valid.",
    ts: now,
    nonce: typeof nonce === "string" ? nonce : null,
    license: {
      id: "00000000-0000-4000-8000-000000000000",
      userId: "1",
      creatorId: "1",
      productId: "1",
      expires: null,
      maxIps: 99,
      key: licenseKey,
      createdAt: now,
      updatedAt: now,
    },
    ips: { count: 1, max: 99 },
  });
  const headers = new Headers({ "content-type": "application/json" });
  if (mode === "forged") {
    const digest = `sha-256=:${createHash("sha256").update(body).digest("base64")}:`;
    const params = `("@status" "content-type" "content-digest");created=${Math.floor(Date.now() / 1000)};keyid="${realKid}";alg="ed25519"`;
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
    const body = (await request.json().catch(() => ({}))) as { nonce?: unknown };
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
    return fakeAnswer(body.nonce);
  },
});
console.log("listening");
