// The reference for bench/validate.ts (bench/README.md, issue 4): the least a server can do to answer
// `POST /api/v1/licenses/validate` on this machine. A bare Bun.serve that parses the JSON body, runs one
// postgres.js `SELECT … FROM licenses WHERE key = $1` and returns a small JSON. No framework, no
// logging, no IP bookkeeping, no response schema: what is left is Bun's HTTP server, JSON and one
// round trip to PostgreSQL.
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/validate-reference.ts
//
// The pool has depot's size (src/db/client.ts openPostgres: max 10) and the same patched postgres.js
// (patches/postgres+3.4.9.patch: without it both slow down for as long as the load lasts), so the
// ratio compares the servers, not a driver fix. The tagged template is postgres.js's ordinary use,
// which prepares the statement once per connection (named statement).
// Prints one line `listening <port>` on stdout once it accepts connections; GET /health answers 200.
import postgres from "postgres";

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

const json = (status: number, body: unknown) => Response.json(body, { status });

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
