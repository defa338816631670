// A benchmark's own PostgreSQL database: created, reused (seeding can take a minute) or dropped, and
// the service's own SQL captured for EXPLAIN rather than retyped.
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Database, Db } from "../../src/db/client.ts";
import * as schema from "../../src/db/schema/index.ts";
import { log, secondsSince } from "../lib.ts";
import { atCleanup } from "./processes.ts";

export class BenchDatabase {
  /** Connection string of the bench database itself. */
  readonly url: string;

  /** `adminUrl`: a database on the same server to create and drop it from (usually `postgres`). */
  constructor(
    readonly name: string,
    private readonly adminUrl: string,
  ) {
    this.url = Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
  }

  /** `name` on the server of `--pg` (a URL without a database name). */
  static onServer(name: string, server: string): BenchDatabase {
    return new BenchDatabase(name, `${server.replace(/\/+$/, "")}/postgres`);
  }

  /** A connection pool of `max` to the bench database, its notices silenced. */
  connect(max: number): postgres.Sql {
    return postgres(this.url, { max, onnotice: () => {} });
  }

  private async admin<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
    const admin = postgres(this.adminUrl, { max: 1, onnotice: () => {} });
    try {
      return await fn(admin);
    } finally {
      await admin.end();
    }
  }

  exists(): Promise<boolean> {
    return this.admin(
      async (sql) => (await sql`SELECT 1 FROM pg_database WHERE datname = ${this.name}`).length > 0,
    );
  }

  /** Drops it (closing whatever is still connected) and creates it empty. */
  recreate(): Promise<void> {
    return this.admin(async (sql) => {
      await sql.unsafe(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
      await sql.unsafe(`CREATE DATABASE ${this.name}`);
    });
  }

  drop(): Promise<void> {
    return this.admin(async (sql) => {
      await sql.unsafe(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
    });
  }

  /** Drops it when the script exits, however it exits, after the processes using it are gone. */
  dropAtExit() {
    atCleanup(async () => {
      try {
        await this.drop();
        log(`dropped ${this.name}`);
      } catch (error) {
        log(`could not drop ${this.name}: ${error}`);
      }
    });
  }

  /**
   * Reuses the database when it already holds the whole dataset (`isSeeded`): `migrate` (new
   * migrations, e.g. indexes, apply) and ANALYZE. Otherwise, or with `reseed`, re-creates it, runs
   * `migrate`, `seed` and VACUUM ANALYZE. Returns the seconds the seed and the VACUUM took, or null
   * when the database was reused.
   */
  async prepare(options: {
    reseed: boolean;
    migrate: () => Promise<unknown>;
    isSeeded: (sql: postgres.Sql) => Promise<boolean>;
    seed: (sql: postgres.Sql) => Promise<void>;
  }): Promise<number | null> {
    let reused = false;
    if (!options.reseed && (await this.exists())) {
      const probe = this.connect(1);
      reused = await options.isSeeded(probe).finally(() => probe.end());
    }
    const sql = this.connect(1);
    try {
      if (reused) {
        log(`reusing ${this.name} (--reseed to rebuild it); migrating and analysing`);
        await options.migrate();
        await sql.unsafe("ANALYZE");
        return null;
      }
      log(`creating ${this.name}`);
      await this.recreate();
      await options.migrate();
      log("seeding");
      const t0 = performance.now();
      await options.seed(sql);
      const insertSeconds = secondsSince(t0);
      const t1 = performance.now();
      await sql.unsafe("VACUUM (ANALYZE)");
      const vacuumSeconds = secondsSince(t1);
      log(`seeded in ${insertSeconds.toFixed(1)} s, VACUUM ANALYZE ${vacuumSeconds.toFixed(1)} s`);
      return insertSeconds + vacuumSeconds;
    } finally {
      await sql.end();
    }
  }
}

export interface Captured {
  query: string;
  params: unknown[];
}

/**
 * A Drizzle instance and a Database's `rows` over `sql` that record every statement they send in
 * `captured`: calling the service's own functions with them yields the SQL the service runs, which
 * then follows the service.
 */
export function capturingDb(sql: postgres.Sql): {
  db: Db;
  database: Pick<Database, "rows">;
  captured: Captured[];
} {
  const captured: Captured[] = [];
  const db = drizzle({
    client: sql,
    schema,
    logger: { logQuery: (query, params) => captured.push({ query, params }) },
  }) as unknown as Db;
  const database: Pick<Database, "rows"> = {
    rows: (query, params) => {
      captured.push({ query, params: [...params] });
      return sql.unsafe(query, params as never, { prepare: true }).values();
    },
  };
  return { db, database, captured };
}

/** EXPLAIN (ANALYZE, BUFFERS) of a statement, run twice: the first may read from disk, the second's plan is returned. */
export async function explainAnalyze(sql: postgres.Sql, statement: Captured): Promise<string[]> {
  const explain = async () =>
    (
      await sql.unsafe(
        `EXPLAIN (ANALYZE, BUFFERS) ${statement.query}`,
        statement.params as postgres.ParameterOrJSON<never>[],
      )
    ).map((row) => String(row["QUERY PLAN"]));
  await explain();
  return explain();
}
