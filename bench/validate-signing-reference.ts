// The signing reference for bench/validate.ts (bench/README.md, Round three): bench/validate-reference.ts
// plus what every validate answer of depot's carries, an RFC 9530 Content-Digest and an Ed25519 RFC 9421
// signature over the same components ("@status", "content-type", "content-digest"), made by depot's own
// signResponseHeaders with a key generated at start. Still no framework, no logging, no IP bookkeeping,
// no response schema: Bun.serve, JSON, one round trip to PostgreSQL and the signature.
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/validate-signing-reference.ts
//
// The same pool size and patched postgres.js as the bare reference; prints `listening <port>` once it
// accepts connections; GET /health answers 200.
import { generateKeyPairSync, sign } from "node:crypto";
import postgres from "postgres";
import { signResponseHeaders } from "../src/features/signing/http-signature.ts";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is required");
  process.exit(2);
}
const sql = postgres(databaseUrl, {
  max: Number(process.env.POOL_MAX ?? 10),
  connect_timeout: 5,
  onnotice: () => {},
});

interface LicenseRow {
  id: string;
  product_id: string;
  expires: Date | null;
  max_ips: number;
  revoked_at: Date | null;
}

const { privateKey } = generateKeyPairSync("ed25519");
const key = {
  kid: "bench-reference",
  sign: (data: Uint8Array | string) => sign(null, Buffer.from(data), privateKey),
};

/** The answer as depot sends a signed one: the JSON text, its digest and the signature headers. */
const json = (status: number, value: unknown) => {
  const body = JSON.stringify(value);
  const headers = {
    "content-type": "application/json",
    ...signResponseHeaders(key, status, "application/json", body),
  };
  return new Response(body, { status, headers });
};

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: process.env.HOST ?? "127.0.0.1",
  routes: {
    "/health": new Response("ok"),
    "/api/v1/licenses/validate": {
      async POST(request) {
        let body: { key?: unknown; productId?: unknown };
        try {
          body = (await request.json()) as typeof body;
        } catch {
          return json(400, { message: "The body is not valid JSON." });
        }
        if (typeof body?.key !== "string") return json(422, { message: "key is required" });
        const [license] = await sql<LicenseRow[]>`
          SELECT id, product_id, expires, max_ips, revoked_at FROM licenses WHERE key = ${body.key}`;
        const valid =
          license !== undefined &&
          license.revoked_at === null &&
          (license.expires === null || license.expires.getTime() > Date.now()) &&
          (body.productId === undefined || String(body.productId) === String(license.product_id));
        return json(200, {
          valid,
          code: valid ? "VALID" : license ? "INVALID" : "NOT_FOUND",
          license: license ? { id: license.id, maxIps: license.max_ips } : null,
        });
      },
    },
  },
  fetch: () => json(404, { message: "Not found." }),
});

console.log(`listening ${server.port}`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void server
      .stop(true)
      .then(() => sql.end({ timeout: 5 }))
      .finally(() => process.exit(0));
  });
}
