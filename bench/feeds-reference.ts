// The reference for bench/feeds.ts (bench/README.md, issue 25): the least a server can do to answer an
// updater's poll on this machine. A bare Bun.serve that reads the newest published version row of the
// product with its file for the platform (one postgres.js query) and answers what depot answers:
// electron-updater's latest.yml, or Tauri's JSON (204 when the client is up to date). No framework, no
// license check, no rollout, no channel, no counting: what is left is Bun's HTTP server and one round
// trip to PostgreSQL.
//
//   DATABASE_URL=postgres://… PORT=… [POOL_MAX=10] bun bench/feeds-reference.ts
//
// The pool has depot's size and the same patched postgres.js. Prints `listening <port>` once it
// accepts connections; GET /health answers 200.
import postgres from "postgres";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error("DATABASE_URL is required");
  process.exit(2);
}
const sql = postgres(databaseUrl, { max: Number(process.env.POOL_MAX ?? 10), onnotice: () => {} });
const origin = process.env.APP_URL ?? "http://127.0.0.1";

interface Newest {
  version_number: string;
  changelog: string;
  published_at: Date;
  file_name: string;
  file_size: string;
  sha512: string | null;
  signature: string | null;
}

const newest = async (productId: number, platform: string) =>
  (
    await sql<Newest[]>`
      SELECT v.version_number, v.changelog, v.published_at, a.file_name, a.file_size, a.sha512, a.signature
      FROM versions v JOIN artifacts a ON a.version_id = v.id
      WHERE v.product_id = ${productId} AND v.status = 'published' AND a.platform = ${platform}
      ORDER BY v.id DESC LIMIT 1`
  )[0];

const fileUrl = (productId: number, row: Newest) =>
  `${origin}/updates/${productId}/files/${encodeURIComponent(row.version_number)}/${encodeURIComponent(row.file_name)}`;

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: "127.0.0.1",
  routes: {
    "/health": new Response("ok"),
    "/updates/:product/electron/latest.yml": async (request) => {
      const productId = Number(request.params.product);
      const row = await newest(productId, "windows");
      if (!row) return Response.json({ message: "No update." }, { status: 404 });
      const url = fileUrl(productId, row);
      const yml =
        `version: ${row.version_number}\nfiles:\n  - url: ${url}\n    sha512: ${row.sha512}\n    size: ${row.file_size}\n` +
        `path: ${url}\nsha512: ${row.sha512}\nreleaseDate: '${row.published_at.toISOString()}'\n` +
        `releaseNotes: ${JSON.stringify(row.changelog)}\n`;
      return new Response(yml, { headers: { "content-type": "application/yaml" } });
    },
    "/updates/:product/tauri/:target/:arch/:current": async (request) => {
      const productId = Number(request.params.product);
      const row = await newest(productId, "linux");
      if (!row || row.version_number === request.params.current) return new Response(null, { status: 204 });
      return Response.json({
        version: row.version_number,
        notes: row.changelog,
        pub_date: row.published_at.toISOString(),
        url: fileUrl(productId, row),
        signature: row.signature,
      });
    },
  },
  fetch: () => Response.json({ message: "Not found." }, { status: 404 }),
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
