import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { migrate } from "../src/db/migrate.ts";
import { renderMigrationIndex } from "../src/db/migration-index.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import { selectRows } from "../src/db/rows.ts";
import { roles } from "../src/db/schema/index.ts";
import { depot } from "./helpers/cli.ts";
import { adminConnection, databaseUrl, dropDatabase, freshDatabase, onPostgres } from "./helpers/db.ts";

test("src/db/migrations.gen.ts embeds every migration in drizzle/ (run `bun run db:generate`)", async () => {
  const expected = await renderMigrationIndex(new URL("../drizzle/", import.meta.url));
  expect(await Bun.file(new URL("../src/db/migrations.gen.ts", import.meta.url)).text()).toBe(expected);
});

test("migrating a current database applies nothing and the roles are seeded once", async () => {
  const { database, drop } = await freshDatabase();
  try {
    expect(await migrate(database.db, migrations)).toEqual([]);
    const recorded = await selectRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`,
    );
    expect(recorded[0]?.n).toBe(migrations.length);
    const seeded = await database.db
      .select({ name: roles.name, permissions: roles.permissions })
      .from(roles)
      .orderBy(roles.id);
    expect(seeded).toEqual([
      { name: "admin", permissions: ["*"] },
      { name: "vendor", permissions: ["versions.publish"] },
      { name: "customer", permissions: [] },
    ]);
  } finally {
    await drop();
  }
});

describe.if(onPostgres)("on PostgreSQL", () => {
  test("two `depot migrate` processes started together migrate once", async () => {
    const name = `depot_test_migrate_${process.pid}`;
    const admin = adminConnection();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.end();
    try {
      const env = { DATABASE_URL: databaseUrl(name) };
      const [a, b] = await Promise.all([
        depot(["migrate", "--json"], env),
        depot(["migrate", "--json"], env),
      ]);
      expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, "", ""]);
      const applied = [...JSON.parse(a.stdout).applied, ...JSON.parse(b.stdout).applied];
      expect(applied.toSorted()).toEqual(migrations.map((m) => m.tag).toSorted());

      const target = postgres(databaseUrl(name), { max: 1 });
      const rows =
        await target`SELECT count(*)::int AS n, count(DISTINCT created_at)::int AS distinct FROM drizzle.__drizzle_migrations`;
      const roleCount = await target`SELECT count(*)::int AS n FROM roles`;
      await target.end();
      expect(rows[0]).toEqual({ n: migrations.length, distinct: migrations.length });
      expect(roleCount[0]?.n).toBe(3);
    } finally {
      await dropDatabase(name);
    }
  }, 60_000);
});

test("a database migrated by a newer depot stops `migrate` and `serve` with exit 2 and one line", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "depot-newer-"));
  try {
    expect((await depot(["migrate", "--json"], { DATA_DIR: dataDir })).code).toBe(0);
    // A newer depot's migration, recorded as drizzle records one: a timestamp this build does not know.
    const newest = Math.max(...migrations.map((m) => m.createdAt));
    const { PGlite } = await import("@electric-sql/pglite");
    const { pgliteAssets } = await import("../src/db/client.ts");
    const pglite = await PGlite.create({ ...(await pgliteAssets()), dataDir: join(dataDir, "db") });
    await pglite.query(
      `INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('newer', ${newest + 1000})`,
    );
    await pglite.close();
    for (const command of [["migrate"], ["serve"]]) {
      const result = await depot(command, { DATA_DIR: dataDir, PORT: "0" });
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 2,
        stderr: `depot ${command[0]}: the database was migrated by a newer depot (1 migration this one does not know); run that version or a later one, or restore the backup taken before upgrading (docs/upgrading.md)\n`,
      });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 180_000);
