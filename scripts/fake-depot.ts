/**
 * A fake depot for scripts/verify-examples.sh and the client libraries' conformance run
 * (sdk/conformance/check.ts): what a cracker puts in depot's place (a hosts-file entry, a proxy) so
 * that the software hears "valid". It answers validate, checkout, activate and the upgrade check
 * (`GET /api/v1/products/{p}/upgrade`) in one of seven ways:
 *
 *   unsigned     made-up answers ({"valid":true,"code":"VALID",…} about LICENSE_KEY, an activation,
 *                an upgrade to 99.0.0) with no Signature headers
 *   forged       the same, signed by a key of its own but naming the real key's keyid
 *   unknown-kid  the same, signed by its own key under its own keyid, which the real JWKS it serves
 *                does not list
 *   replayed     genuine signed answers recorded earlier (another nonce): validate and checkout for
 *                LICENSE_KEY at start, activate and the upgrade check on first use
 *   swapped      relays the request to the real depot with the key replaced by LICENSE_KEY (the
 *                attacker's own license): a genuine, fresh, signed answer with the caller's nonce,
 *                about another license; the upgrade check is asked for another platform (a genuine
 *                answer about something else)
 *   tampered     relays the request as it is, then changes the genuine answer's body (VALID, an upgrade
 *                offered, a live machine), keeping its digest and signature
 *   self-keyed   a self-consistent fake: it publishes a JWKS with its own key (and its own kid), signs
 *                its made-up answers with that key, and checkout hands out a license file signed by it
 *
 * All but self-keyed serve a copy of the real JWKS, and a verifier refuses them either way. A
 * self-keyed fake passes a verifier that takes its keys from the server it asks: only keys pinned in
 * the software (--jwks) refuse it.
 *
 *   bun scripts/fake-depot.ts MODE REAL_DEPOT_URL LICENSE_KEY PORT
 *
 * Prints "listening" once it answers.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";

const MODES = ["unsigned", "forged", "unknown-kid", "replayed", "swapped", "tampered", "self-keyed"];
const [mode = "", realUrl, licenseKey, port] = process.argv.slice(2);
if (!MODES.includes(mode) || !realUrl || !licenseKey || !port) {
  console.error(`usage: bun scripts/fake-depot.ts ${MODES.join("|")} REAL_DEPOT_URL LICENSE_KEY PORT`);
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
// forged: our key under the real keyid; self-keyed and unknown-kid: our key under our own.
const signingKid: string = mode === "forged" ? JSON.parse(jwksText).keys[0].kid : ownKid;

/** An answer: status, headers and body bytes (exactly as depot sent them, for a relayed one). */
interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

/** A genuine answer from the real depot. */
async function relay(method: string, pathAndQuery: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${realUrl}${pathAndQuery}`, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = {
    status: response.status,
    headers: new Headers(response.headers),
    body: new Uint8Array(await response.arrayBuffer()),
  };
  answer.headers.delete("content-length");
  return answer;
}

const recordValidation = (path: string) =>
  relay("POST", path, {}, { key: licenseKey, nonce: "recorded-earlier" });
const recorded: Record<string, Promise<Answer>> = mode === "replayed"
  ? {
      validate: recordValidation("/api/v1/licenses/validate"),
      checkout: recordValidation("/api/v1/licenses/checkout"),
    }
  : {};
await Promise.all(Object.values(recorded));

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

type Body = Record<string, unknown>;
const text = (value: unknown) => (typeof value === "string" ? value : null);

function fakeLicense(request: Body) {
  const now = new Date().toISOString();
  return {
    id: "00000000-0000-4000-8000-000000000000",
    userId: "1",
    creatorId: "1",
    // The product asked about: a fake says whatever the caller wants to hear.
    productId: text(request.productId) ?? "1",
    expires: null,
    maxIps: 99,
    key: licenseKey,
    createdAt: now,
    updatedAt: now,
  };
}

function fakeValidation(request: Body, checkout: boolean): Body {
  const license = fakeLicense(request);
  const exp = Math.floor(Date.now() / 1000) + 30 * 86_400;
  return {
    valid: true,
    code: "VALID",
    detail: "This license is valid.",
    ts: new Date().toISOString(),
    nonce: text(request.nonce),
    license,
    ips: { count: 1, max: 99 },
    ...(typeof request.fingerprint === "string" ? { machine: fakeMachine(request) } : {}),
    ...(checkout && mode === "self-keyed"
      ? {
          license_file: fakeLicenseFile(license, exp),
          license_file_expires_at: new Date(exp * 1000).toISOString(),
        }
      : {}),
  };
}

function fakeMachine(request: Body) {
  const now = new Date().toISOString();
  return {
    id: randomUUID(),
    licenseId: "00000000-0000-4000-8000-000000000000",
    fingerprint: text(request.fingerprint) ?? "",
    name: text(request.name),
    platform: text(request.platform),
    hostname: text(request.hostname),
    createdAt: now,
    lastHeartbeatAt: now,
    alive: true,
  };
}

/** An upgrade to 99.0.0 for whatever was asked: the update a cracker wants installed. */
function fakeUpgrade(product: string, query: URLSearchParams): Body {
  const now = new Date().toISOString();
  const platform = query.get("platform") ?? "any";
  const arch = query.get("arch") ?? "any";
  const file = "update-99.0.0.bin";
  const bytes = Buffer.from("not what the vendor published\n");
  return {
    upgrade: true,
    current: query.get("version"),
    product_id: product,
    platform,
    arch,
    channel: query.get("channel") ?? "stable",
    nonce: query.get("nonce"),
    version: {
      id: 999,
      product_id: product,
      version_number: "99.0.0",
      title: "99.0.0",
      changelog: "",
      changelog_format: "markdown",
      channel: "stable",
      critical: true,
      published_at: now,
      artifacts: [
        {
          id: 999,
          version_id: 999,
          platform: platform === "any" ? "linux" : platform,
          arch: arch === "any" ? "x86_64" : arch,
          file_name: file,
          file_size: bytes.length,
          sha256: createHash("sha256").update(bytes).digest("hex"),
          sha512: createHash("sha512").update(bytes).digest("base64"),
          content_type: "application/octet-stream",
          signature: null,
          download_url: `${ownUrl}/${file}`,
          created_at: now,
        },
      ],
    },
  };
}

/** A made-up answer, signed as the mode signs (unsigned: not at all). */
function madeUp(status: number, body: Body): Answer {
  const bytes = Buffer.from(JSON.stringify(body));
  const headers = new Headers({ "content-type": "application/json" });
  if (mode !== "unsigned") {
    const digest = `sha-256=:${createHash("sha256").update(bytes).digest("base64")}:`;
    const params = `("@status" "content-type" "content-digest");created=${Math.floor(Date.now() / 1000)};keyid="${signingKid}";alg="ed25519"`;
    const base = `"@status": ${status}\n"content-type": application/json\n"content-digest": ${digest}\n"@signature-params": ${params}`;
    headers.set("content-digest", digest);
    headers.set("signature-input", `depot=${params}`);
    headers.set("signature", `depot=:${sign(null, Buffer.from(base), privateKey).toString("base64")}:`);
  }
  return { status, headers, body: bytes };
}

/** The genuine answer with its body changed; its Content-Digest and Signature stay as depot sent them. */
function tamper(answer: Answer): Answer {
  const original = Buffer.from(answer.body).toString("utf8");
  let changed = original;
  try {
    const body = JSON.parse(original) as Body;
    if ("valid" in body)
      Object.assign(body, { valid: true, code: "VALID", detail: "This license is valid." });
    if ("upgrade" in body) body.upgrade = true;
    if (typeof body.machine === "object" && body.machine !== null)
      Object.assign(body.machine, { alive: true });
    changed = JSON.stringify(body);
  } catch {
    // not JSON: the byte added below is the change
  }
  // A change that changes nothing (it was VALID already) is no test: one more byte, still JSON.
  if (changed === original) changed = `${original}\n`;
  return { ...answer, body: Buffer.from(changed) };
}

/** The upgrade check asked for another platform than the caller's. */
function otherPlatform(query: URLSearchParams): URLSearchParams {
  const moved = new URLSearchParams(query);
  moved.set("platform", query.get("platform") === "windows" ? "linux" : "windows");
  return moved;
}

async function answer(request: Request): Promise<Answer | null> {
  const url = new URL(request.url);
  const upgrade = /^\/api\/v1\/products\/([^/]+)\/upgrade$/.exec(url.pathname);
  const route = upgrade
    ? "upgrade"
    : ({
        "/api/v1/licenses/validate": "validate",
        "/api/v1/licenses/checkout": "checkout",
        "/api/v1/licenses/activate": "activate",
      }[url.pathname] ?? null);
  if (route === null || request.method !== (route === "upgrade" ? "GET" : "POST")) return null;
  const body = route === "upgrade" ? {} : ((await request.json().catch(() => ({}))) as Body);
  const auth = request.headers.get("authorization");
  const forwarded: Record<string, string> = auth === null ? {} : { authorization: auth };
  const query = url.searchParams;

  if (mode === "replayed") {
    // Recorded on first use: the same request with a nonce of long ago.
    recorded[route] ??=
      route === "upgrade"
        ? relay(
            "GET",
            `${url.pathname}?${new URLSearchParams({ ...Object.fromEntries(query), nonce: "recorded-earlier" })}`,
            forwarded,
          )
        : relay("POST", url.pathname, forwarded, { ...body, nonce: "recorded-earlier" });
    return (await recorded[route]) ?? null;
  }
  if (mode === "swapped") {
    if (route === "upgrade") {
      return relay("GET", `${url.pathname}?${otherPlatform(query)}`, {
        authorization: `License ${licenseKey}`,
      });
    }
    return relay("POST", url.pathname, forwarded, { ...body, key: licenseKey });
  }
  if (mode === "tampered") {
    const genuine =
      route === "upgrade"
        ? await relay("GET", `${url.pathname}${url.search}`, forwarded)
        : await relay("POST", url.pathname, forwarded, body);
    return tamper(genuine);
  }
  if (route === "upgrade") return madeUp(200, fakeUpgrade(upgrade?.[1] ?? "1", query));
  if (route === "activate") {
    return madeUp(201, { machine: fakeMachine(body), license: fakeLicense(body), nonce: text(body.nonce) });
  }
  return madeUp(200, fakeValidation(body, route === "checkout"));
}

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (request.method === "GET" && (pathname === "/.well-known/jwks.json" || pathname === "/api/v1/keys")) {
      return new Response(jwksText, { headers: { "content-type": "application/json" } });
    }
    const made = await answer(request);
    if (made === null) return new Response("not found", { status: 404 });
    return new Response(made.body, { status: made.status, headers: made.headers });
  },
});
console.log("listening");
