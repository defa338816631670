import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { selectRows } from "./rows.ts";
import { withTransaction } from "./transaction.ts";

export interface Migration {
  tag: string;
  /** drizzle-kit's journal timestamp; drizzle records it as `created_at`. */
  createdAt: number;
  sql: string;
}

/**
 * The database holds migrations this depot does not know: a newer depot migrated it. Running on it
 * would read tables this code has never seen, so the start stops instead (docs/upgrading.md says how
 * to go back).
 */
export class NewerDatabase extends Error {
  constructor(readonly unknownMigrations: number) {
    super(
      `the database was migrated by a newer depot (${unknownMigrations} migration${unknownMigrations === 1 ? "" : "s"} this one does not know); run that version or a later one, or restore the backup taken before upgrading (docs/upgrading.md)`,
    );
  }
}

/** Any fixed number works; it only has to be the same in every depot process. */
const MIGRATION_LOCK = 0x6465706f; // "depo"

/**
 * Applies the migrations not yet recorded, all in one transaction that first takes an advisory lock:
 * two instances starting together serialise here and the second finds nothing left to do.
 * The bookkeeping table is drizzle's own (`drizzle.__drizzle_migrations`), so drizzle-kit tooling
 * sees the same history.
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<string[]> {
  return withTransaction({ db }, async ({ db: tx }) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`CREATE SCHEMA IF NOT EXISTS drizzle`);
    await tx.execute(sql`
      CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (
        id serial PRIMARY KEY, hash text NOT NULL, created_at bigint
      )`);
    const rows = await selectRows<{ created_at: string }>(
      tx,
      sql`SELECT created_at::text FROM drizzle.__drizzle_migrations`,
    );
    const applied = new Set(rows.map((row) => Number(row.created_at)));
    const known = new Set(migrations.map((m) => m.createdAt));
    const unknown = [...applied].filter((createdAt) => !known.has(createdAt));
    if (unknown.length > 0) throw new NewerDatabase(unknown.length);
    const pending = migrations.filter((m) => !applied.has(m.createdAt));
    for (const migration of pending) {
      for (const statement of migration.sql.split("--> statement-breakpoint")) {
        if (statement.trim() !== "") await tx.execute(sql.raw(statement));
      }
      const hash = new Bun.CryptoHasher("sha256").update(migration.sql).digest("hex");
      await tx.execute(
        sql`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${hash}, ${migration.createdAt})`,
      );
    }
    return pending.map((m) => m.tag);
  });
}
