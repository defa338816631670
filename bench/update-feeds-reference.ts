// The reference for bench/update-feeds.ts (bench/README.md, issue 25): the least a server can do to
// answer an updater's poll on this machine. A bare Bun.serve that reads the license key from the
// Authorization header, runs one postgres.js query for the license and one for the newest version
// row with its file, and answers the same shapes depot does (electron's YAML, Tauri's JSON). No
// framework, no logging, no channels, rollout or semver ordering: Bun's HTTP server and two round
// trips to PostgreSQL. Its upgrade check (`/api/v1/products/:product/upgrade`) is the signing
// reference of depot's: the same answer, signed as depot signs it (an RFC 9530 Content-Digest and an
// Ed25519 RFC 9421 signature over "@status", "content-type" and "content-digest", made by depot's own
// signResponseHeaders with a key generated at start).
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/update-feeds-reference.ts
//
// The pool has the size depot runs with in bench/update-feeds.ts (10) and the same patched postgres.js.
// GET /health answers 200 once it accepts connections.
import { referencePool } from "./lib/reference-pool.ts";
import { signedJson } from "./lib/reference-signature.ts";

const sql = referencePool();
const appUrl = process.env.APP_URL ?? "http://127.0.0.1";

interface Newest {
  version_number: string;
  changelog: string;
  created_at: Date;
  file_name: string;
  file_size: string;
  sha512: string | null;
  signature: string | null;
}

/** The license must be live and for the product; then the newest version of the platform. */
async function newest(request: Request, productId: string, platform: string): Promise<Newest | Response> {
  const key = /^License (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!key) return Response.json({ message: "Unauthenticated." }, { status: 401 });
  const [license] = await sql`
    SELECT 1 FROM licenses WHERE key = ${key} AND product_id = ${productId}
      AND revoked_at IS NULL AND (expires IS NULL OR expires > now())`;
  if (!license)
    return Response.json({ message: "This license does not hold this product." }, { status: 403 });
  const [row] = await sql<Newest[]>`
    SELECT v.version_number, v.changelog, v.created_at, a.file_name, a.file_size, a.sha512, a.signature
    FROM versions v JOIN artifacts a ON a.version_id = v.id
    WHERE v.product_id = ${productId} AND v.status = 'published' AND a.platform = ${platform}
    ORDER BY v.id DESC LIMIT 1`;
  if (!row) return Response.json({ message: "Update not found." }, { status: 404 });
  return row;
}

const fileUrl = (productId: string, row: Newest) =>
  `${appUrl}/updates/${productId}/files/${row.version_number}/${row.file_name}`;

Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: process.env.HOST ?? "127.0.0.1",
  routes: {
    "/health": new Response("ok"),
    "/updates/:product/electron/latest.yml": async (request) => {
      const row = await newest(request, request.params.product, "windows");
      if (row instanceof Response) return row;
      const url = JSON.stringify(fileUrl(request.params.product, row));
      const yml = [
        `version: ${JSON.stringify(row.version_number)}`,
        "files:",
        `  - url: ${url}`,
        `    sha512: ${JSON.stringify(row.sha512)}`,
        `    size: ${row.file_size}`,
        `path: ${url}`,
        `sha512: ${JSON.stringify(row.sha512)}`,
        `releaseDate: ${JSON.stringify(row.created_at.toISOString())}`,
        `releaseNotes: ${JSON.stringify(row.changelog)}`,
        "",
      ].join("\n");
      return new Response(yml, {
        headers: { "content-type": "application/yaml", "cache-control": "no-store" },
      });
    },
    "/updates/:product/tauri/:target/:arch/:current": async (request) => {
      const row = await newest(request, request.params.product, request.params.target);
      if (row instanceof Response) return row;
      if (row.version_number === request.params.current) return new Response(null, { status: 204 });
      return Response.json(
        {
          version: row.version_number,
          notes: row.changelog,
          pub_date: row.created_at.toISOString(),
          url: fileUrl(request.params.product, row),
          signature: row.signature ?? "",
        },
        { headers: { "cache-control": "no-store" } },
      );
    },
    "/api/v1/products/:product/upgrade": async (request) => {
      const query = new URL(request.url).searchParams;
      const current = query.get("version") ?? "";
      const platform = query.get("platform") ?? "windows";
      const row = await newest(request, request.params.product, platform);
      if (row instanceof Response) return row;
      const upgrade = row.version_number !== current;
      return signedJson(
        200,
        {
          upgrade,
          current,
          product_id: request.params.product,
          platform,
          arch: query.get("arch") ?? "any",
          channel: "stable",
          nonce: query.get("nonce"),
          version: upgrade
            ? {
                version_number: row.version_number,
                changelog: row.changelog,
                published_at: row.created_at.toISOString(),
                artifacts: [
                  {
                    file_name: row.file_name,
                    file_size: Number(row.file_size),
                    sha512: row.sha512,
                    url: fileUrl(request.params.product, row),
                  },
                ],
              }
            : null,
        },
        { "cache-control": "no-store" },
      );
    },
  },
});
