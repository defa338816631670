import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

// The test's own depot: answers signed as depot signs them (docs/integrators.md), by a key made here
// and pinned by the client under test, so that each test breaks exactly one thing.

const utf8 = (text: string) => new TextEncoder().encode(text);
const base64 = (bytes: ArrayBuffer | Uint8Array) => btoa(String.fromCharCode(...new Uint8Array(bytes)));

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  /** The public JWK, as a JWKS lists it. */
  jwk: { kty: "OKP"; crv: "Ed25519"; x: string; kid: string; alg: "EdDSA"; use: "sig" };
}

export async function makeKey(kid: string): Promise<SigningKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ])) as unknown as {
    publicKey: CryptoKey;
    privateKey: CryptoKey;
  };
  const { x } = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return {
    kid,
    privateKey: pair.privateKey,
    jwk: { kty: "OKP", crv: "Ed25519", x: x as string, kid, alg: "EdDSA", use: "sig" },
  };
}

export const jwksOf = (...keys: SigningKey[]) => JSON.stringify({ keys: keys.map((k) => k.jwk) });

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Send the body, then drop the connection (a download cut short). */
  cut?: boolean;
}

export interface SignOptions {
  status?: number;
  contentType?: string;
  /** Seconds since the epoch (default now). */
  created?: number;
  /** The keyid named (default the key's own). */
  keyid?: string;
  /** Signature-Input's value after `depot=` (default what depot sends). */
  params?: string;
  headers?: Record<string, string>;
}

/** `body` signed by `key` exactly as depot signs an answer. */
export async function signed(key: SigningKey, body: unknown, options: SignOptions = {}): Promise<Answer> {
  const status = options.status ?? 200;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const contentType = options.contentType ?? "application/json";
  const digest = `sha-256=:${base64(await crypto.subtle.digest("SHA-256", utf8(text)))}:`;
  const created = options.created ?? Math.floor(Date.now() / 1000);
  const params =
    options.params ??
    `("@status" "content-type" "content-digest");created=${created};keyid="${options.keyid ?? key.kid}";alg="ed25519"`;
  const signatureBase = `"@status": ${status}\n"content-type": ${contentType}\n"content-digest": ${digest}\n"@signature-params": ${params}`;
  const signature = await crypto.subtle.sign("Ed25519", key.privateKey, utf8(signatureBase));
  return {
    status,
    headers: {
      "content-type": contentType,
      "content-digest": digest,
      "signature-input": `depot=${params}`,
      signature: `depot=:${base64(signature)}:`,
      ...options.headers,
    },
    body: text,
  };
}

export interface Request {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  /** The JSON body, or {} */
  json: Record<string, unknown>;
}

/** What a handler answers; "hang" never answers (a timeout). */
export type Handler = (request: Request) => Promise<Answer | "hang"> | Answer | "hang";

export interface TestServer {
  url: string;
  requests: Request[];
  close(): Promise<void>;
}

/** An HTTP server on a free port of 127.0.0.1 (node:http, which Node and Bun both have). */
export async function serve(handler: Handler): Promise<TestServer> {
  const requests: Request[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let json: Record<string, unknown> = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      // not JSON
    }
    const request = {
      method: incoming.method ?? "GET",
      url: new URL(incoming.url ?? "/", "http://x"),
      headers: incoming.headers,
      json,
    };
    requests.push(request);
    const answer = await handler(request);
    if (answer === "hang") {
      hanging.add(response);
      return;
    }
    response.writeHead(answer.status, answer.headers);
    if (answer.cut) {
      response.write(answer.body, () => response.socket?.destroy());
      return;
    }
    response.end(answer.body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections?.();
        server.close(() => done());
      }),
  };
}

/** A license as depot's license API shows it. */
export function license(key: string, productId = "1") {
  const now = new Date().toISOString();
  return {
    id: "6f1c1d7e-0000-4000-8000-000000000001",
    userId: "1",
    creatorId: "1",
    productId,
    expires: null,
    maxIps: 5,
    key,
    createdAt: now,
    updatedAt: now,
  };
}

/** A machine as depot's machine routes show it. */
export function machine(fingerprint: string, id = "8a1c1d7e-0000-4000-8000-000000000002") {
  const now = new Date().toISOString();
  return {
    id,
    licenseId: "6f1c1d7e-0000-4000-8000-000000000001",
    fingerprint,
    name: null,
    platform: null,
    hostname: null,
    createdAt: now,
    lastHeartbeatAt: now,
    alive: true,
  };
}

/** A validation answer as depot's validate gives it. */
export function validation(request: Request, overrides: Record<string, unknown> = {}) {
  return {
    valid: true,
    code: "VALID",
    detail: "This license is valid.",
    ts: new Date().toISOString(),
    nonce: request.json.nonce ?? null,
    license: license(String(request.json.key), String(request.json.productId ?? "1")),
    ips: { count: 1, max: 5 },
    ...overrides,
  };
}

/** A compact JWS license file, armoured, signed by `key` (header and claims as given). */
export async function licenseFile(
  key: SigningKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const part = (value: unknown) =>
    base64(utf8(JSON.stringify(value)))
      .replaceAll("+", "-")
      .replaceAll("/", "_")
      .replace(/=+$/, "");
  const head = part({ alg: "EdDSA", typ: "depot-license+jwt", kid: key.kid, ...header });
  const payload = part(claims);
  const signature = await crypto.subtle.sign("Ed25519", key.privateKey, utf8(`${head}.${payload}`));
  const sig = base64(signature).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const jws = `${head}.${payload}.${sig}`;
  return `-----BEGIN DEPOT LICENSE FILE-----\n${jws.match(/.{1,64}/g)?.join("\n")}\n-----END DEPOT LICENSE FILE-----\n`;
}
