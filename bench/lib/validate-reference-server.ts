// The validate reference server behind bench/validate-reference.ts and
// bench/validate-signing-reference.ts: Bun.serve, JSON, one round trip to PostgreSQL.
import { referencePool } from "./reference-pool.ts";

const sql = referencePool();

interface LicenseRow {
  id: string;
  product_id: string;
  expires: Date | null;
  max_ips: number;
  revoked_at: Date | null;
}

/**
 * Serves `POST /api/v1/licenses/validate` from one postgres.js query, its answers made by `json`
 * (plain, or signed as depot signs them); prints `listening <port>` once it accepts connections.
 */
export function serveValidateReference(json: (status: number, value: unknown) => Response): void {
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
}
