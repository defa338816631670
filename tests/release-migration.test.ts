// The releases migrations (…_releases, …_version_files_to_artifacts): versions published before
// artifacts keep their file as their first artifact, are published, and get the channel their name
// implies; their download keeps working.
import { expect, test } from "bun:test";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { type Database, openPostgres, pgliteAssets, wrapPglite } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations.gen.ts";
import { selectRows } from "../src/db/rows.ts";
import { adminConnection, databaseUrl, dropDatabase, onPostgres } from "./helpers/db.ts";

const BEFORE = migrations.findIndex((m) => m.tag.endsWith("_releases"));

/** An empty database on whichever engine the suite runs on; migrated later by the test. */
async function emptyDatabase(): Promise<{ database: Database; drop: () => Promise<void> }> {
  if (!onPostgres) {
    const database = wrapPglite(await PGlite.create(await pgliteAssets()));
    return { database, drop: () => database.close() };
  }
  const name = `depot_test_release_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = adminConnection();
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const database = openPostgres(databaseUrl(name), { max: 2 });
  return {
    database,
    drop: async () => {
      await database.close();
      await dropDatabase(name);
    },
  };
}

test("each older version becomes published, with its file as its one artifact and its name's channel", async () => {
  expect(BEFORE).toBeGreaterThan(0);
  const { database, drop } = await emptyDatabase();
  try {
    const { db } = database;
    await migrate(db, migrations.slice(0, BEFORE));
    await db.execute(
      sql`INSERT INTO users (id, name, email, role_id) SELECT 1, 'V', 'v@example.com', id FROM roles WHERE name = 'vendor'`,
    );
    await db.execute(sql`INSERT INTO products (id, name, user_id, slug) VALUES (1, 'P', 1, 'p')`);
    const names = ["1.0.0", "v2.0.0-beta.3", "2.0.0-RC1", "2.0.0-alpha", "2.1.0-nightly.5", "1.0", "release"];
    for (const [i, name] of names.entries()) {
      await db.execute(sql`
        INSERT INTO versions (product_id, version_number, title, changelog, changelog_format, file_name,
                              file_size, content_type, sha256, storage_key, created_at)
        VALUES (1, ${name}, 't', 'c', 'markdown', ${`f${i}.zip`}, ${10 + i}, 'application/zip',
                ${String(i).repeat(64)}, ${`products/1/key-${i}`}, ${new Date(Date.UTC(2026, 0, i + 1)).toISOString()}::timestamptz)`);
    }

    expect(await migrate(db, migrations)).toEqual(migrations.slice(BEFORE).map((m) => m.tag));

    const versions = await selectRows<{
      version_number: string;
      channel: string;
      status: string;
      published_at: Date | string;
      rollout_percentage: number;
      critical: boolean;
    }>(
      db,
      sql`SELECT version_number, channel, status, published_at, rollout_percentage, critical FROM versions ORDER BY id`,
    );
    expect(versions.map((v) => [v.version_number, v.channel, v.status])).toEqual([
      ["1.0.0", "stable", "published"],
      ["v2.0.0-beta.3", "beta", "published"],
      ["2.0.0-RC1", "rc", "published"],
      ["2.0.0-alpha", "alpha", "published"],
      ["2.1.0-nightly.5", "dev", "published"],
      ["1.0", "stable", "published"],
      ["release", "stable", "published"],
    ]);
    for (const [i, v] of versions.entries()) {
      expect(new Date(v.published_at).toISOString()).toBe(new Date(Date.UTC(2026, 0, i + 1)).toISOString());
      expect([v.rollout_percentage, v.critical]).toEqual([100, false]);
    }
    const files = await selectRows<Record<string, unknown>>(
      db,
      sql`SELECT a.platform, a.arch, a.file_name, a.file_size::int AS file_size, a.content_type, a.sha256,
                 a.sha512, a.storage_key, a.signature, a.blockmap_storage_key, v.version_number
          FROM artifacts a JOIN versions v ON v.id = a.version_id ORDER BY a.id`,
    );
    expect(files).toEqual(
      names.map((name, i) => ({
        platform: "any",
        arch: "any",
        file_name: `f${i}.zip`,
        file_size: 10 + i,
        content_type: "application/zip",
        sha256: String(i).repeat(64),
        sha512: null,
        storage_key: `products/1/key-${i}`,
        signature: null,
        blockmap_storage_key: null,
        version_number: name,
      })),
    );
    const columns = await selectRows<{ column_name: string }>(
      db,
      sql`SELECT column_name FROM information_schema.columns WHERE table_name = 'versions' AND column_name IN ('file_name', 'storage_key', 'sha256')`,
    );
    expect(columns).toEqual([]);
  } finally {
    await drop();
  }
}, 60_000);
