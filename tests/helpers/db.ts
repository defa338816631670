import { PGlite } from "@electric-sql/pglite";
import pgBossPackage from "pg-boss/package.json" with { type: "json" };
import postgres from "postgres";
import { installPgBoss } from "../../scripts/initial-data.ts";
import { type Database, openPostgres, pgliteAssets, wrapPglite } from "../../src/db/client.ts";
import { initialDataArchive } from "../../src/db/initial-data.ts";
import { migrate } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations.gen.ts";

/** PostgreSQL the suite runs on; without one it runs on embedded PGlite (docs/DEVELOPMENT.md, Development). */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? null;
export const onPostgres = testDatabaseUrl !== null;

export interface TestDatabase {
  database: Database;
  /** Connection string of this file's own database (PostgreSQL only). */
  url: string | null;
  drop(): Promise<void>;
}

/**
 * A database of its own for one test file, already migrated and with pg-boss installed:
 * on PostgreSQL `CREATE DATABASE … TEMPLATE` of a template built once per schema version,
 * on PGlite an in-memory copy of the initial data a first start unpacks (src/db/initial-data.ts).
 */
export async function freshDatabase(): Promise<TestDatabase> {
  return onPostgres ? freshPostgres() : freshPglite();
}

/** Names the template after everything that shapes it, so a changed schema gets a new one. */
const templateVersion = new Bun.CryptoHasher("sha256")
  .update(migrations.map((m) => m.sql).join("\n"))
  .update(pgBossPackage.version)
  .digest("hex")
  .slice(0, 12);

export function databaseUrl(name: string): string {
  const url = new URL(testDatabaseUrl ?? "");
  url.pathname = `/${name}`;
  return url.toString();
}

/** A connection to the server's maintenance database, for CREATE/DROP DATABASE. */
export function adminConnection() {
  return postgres(testDatabaseUrl ?? "", { max: 1, onnotice: () => {} });
}

let postgresTemplate: Promise<string> | undefined;

async function freshPostgres(): Promise<TestDatabase> {
  postgresTemplate ??= buildPostgresTemplate();
  const template = await postgresTemplate;
  const name = `depot_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = adminConnection();
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(name);
  const database = openPostgres(url, { max: 5 });
  return {
    database,
    url,
    async drop() {
      await database.close();
      await dropDatabase(name);
    },
  };
}

export async function dropDatabase(name: string) {
  const admin = adminConnection();
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function buildPostgresTemplate(): Promise<string> {
  const template = `depot_tpl_${templateVersion}`;
  const admin = adminConnection();
  try {
    const existing = await admin`SELECT 1 FROM pg_database WHERE datname = ${template}`;
    if (existing.length > 0) return template;
    // Built under a private name and renamed, so a concurrent run never clones a half-built template.
    const building = `${template}_${process.pid}`;
    await admin.unsafe(`DROP DATABASE IF EXISTS ${building}`);
    await admin.unsafe(`CREATE DATABASE ${building}`);
    const database = openPostgres(databaseUrl(building), { max: 1 });
    try {
      await migrate(database.db, migrations);
    } finally {
      await database.close();
    }
    await installPgBoss({ connectionString: databaseUrl(building), max: 1 });
    try {
      await admin.unsafe(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } catch {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`); // another run won the race
    }
    return template;
  } finally {
    await admin.end();
  }
}

let pgliteTemplate: Promise<Blob> | undefined;

async function freshPglite(): Promise<TestDatabase> {
  // Uncompressed once: PGlite would gunzip it for every copy.
  pgliteTemplate ??= (async () =>
    new Blob([Bun.gunzipSync(await Bun.file(await initialDataArchive()).bytes())]))();
  const pglite = await PGlite.create({ ...(await pgliteAssets()), loadDataDir: await pgliteTemplate });
  const database = wrapPglite(pglite);
  return { database, url: null, drop: () => database.close() };
}
