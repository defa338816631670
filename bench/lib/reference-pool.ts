// The reference servers' PostgreSQL pool (bench/lib/validate-reference-server.ts,
// bench/update-feeds-reference.ts): DATABASE_URL, and depot's pool size unless POOL_MAX says otherwise,
// on the same patched postgres.js.
import postgres from "postgres";

export function referencePool(): postgres.Sql {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("DATABASE_URL is required");
    process.exit(2);
  }
  return postgres(databaseUrl, {
    max: Number(process.env.POOL_MAX ?? 10),
    connect_timeout: 5,
    onnotice: () => {},
  });
}
