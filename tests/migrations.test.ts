import { describe, expect, test } from "bun:test";
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
