import { chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import fsBundlePath from "@electric-sql/pglite/pglite.data" with { type: "file" };
import pgliteWasmPath from "@electric-sql/pglite/pglite.wasm" with { type: "file" };
import { type Logger as DrizzleLogger, DrizzleQueryError, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { DATABASE_TIMEOUT_DEFAULTS } from "../config.ts";
import { PRIVATE_FILE } from "../file-modes.ts";
import type { Logger } from "../log.ts";
import { initialise, isInitialised } from "./embedded-init.ts";
import { lockDataDir } from "./embedded-lock.ts";
import { initialDataArchive } from "./initial-data.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The Drizzle handle every service uses, whichever database is behind it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/**
 * The PostgreSQL connection pool right now: its size, its connections by state (they add up to `max`)
 * and the queries waiting because no connection could take them. From `sql.stats`, which
 * patches/postgres+3.4.9.patch adds to postgres.js (its pool state is otherwise private).
 */
export interface PoolStats extends postgres.PoolStats {
  readonly max: number;
}

export interface Database {
  readonly kind: "postgres" | "embedded";
  readonly db: Db;
  /** Set for the embedded database; pg-boss talks to it through `fromPglite`. */
  readonly pglite: PGlite | null;
  /** Set for PostgreSQL; pg-boss opens its own pool from it. */
  readonly url: string | null;
  /**
   * The rows of one statement as arrays, straight through the driver (on PostgreSQL prepared once per
   * connection), with the driver's own parsing of values and no Drizzle mapping: for the read every
   * validation makes, where that mapping cost more than the round trip (licenses/license-by-key.ts).
   */
  rows(text: string, params: readonly unknown[]): Promise<unknown[][]>;
  /** Resolves when the database answers `SELECT 1` within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  /** The connection pool's state; null for the embedded database, which has one connection and no pool. */
  pool(): PoolStats | null;
  /**
   * Runs `fn` on a connection of its own that no statement timeout applies to: for migrations, which may
   * rewrite large tables and wait for another instance's migration lock. The embedded database has
   * no timeouts: `fn` gets its one connection.
   */
  withoutStatementTimeout<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Calls `onPayload` with every `NOTIFY channel` payload, on a connection of its own that postgres.js
   * opens again (and listens again on) after a drop. The embedded database is one process: nothing to hear.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  /**
   * The most connections of the pool; 10 when not given (tests, bench). depot's commands pass
   * DATABASE_POOL_SIZE or a `depot serve` process's share of it (runtime.ts, openDatabase).
   */
  max?: number;
  /**
   * PostgreSQL's application_name for every connection (the pool's, LISTEN's, migrations'): "depot"
   * from depot's commands, so that pg_stat_activity tells them from pg-boss's ("depot-jobs") when
   * counting against max_connections. Not given: postgres.js's own.
   */
  applicationName?: string;
  log?: Logger;
  /** DATABASE_CONNECT_TIMEOUT_SECONDS; its default when not given. */
  connectTimeoutSeconds?: number;
  /** DATABASE_STATEMENT_TIMEOUT_SECONDS; its default when not given. */
  statementTimeoutSeconds?: number;
}

/**
 * How much longer than the statement timeout a connection may stay silent: PostgreSQL cancels a
 * statement at the timeout and says so at once, so silence past this means nobody is listening.
 */
const ANSWER_GRACE_SECONDS = 1;

/**
 * Seconds before a connection is reopened after failed attempts. postgres.js's own delay grows to
 * 20 s (3^n / 100 s), and the query handed to that connection waits it out, with no timeout running:
 * after a PostgreSQL restart, requests hung for that long although the database was back. Capped at
 * 1 s (less its jitter), a pool of 10 makes at most about 20 attempts a second while the database is away.
 */
const reconnectDelay = (retries: number) => Math.min(3 ** retries / 100, 1) * (0.5 + Math.random() / 2);

/**
 * At LOG_LEVEL=debug every statement is logged (its text, never its parameters: they hold token
 * hashes, keys and e-mail addresses).
 */
function queryLogger(log: Logger | undefined): DrizzleLogger | undefined {
  if (!log?.enabled("debug")) return undefined;
  return { logQuery: (query) => log.debug("query", { sql: query }) };
}

/**
 * Database.rows as Drizzle runs a query: its statement logged at debug level (without parameters),
 * and a failure wrapped as Drizzle wraps one, so that the log and the 503 for a database that is
 * away (log-errors.ts, db/errors.ts) read it alike.
 */
function asDrizzleRuns(log: Logger | undefined, rows: Database["rows"]): Database["rows"] {
  const logger = queryLogger(log);
  return async (text, params) => {
    logger?.logQuery(text, []);
    try {
      return await rows(text, params);
    } catch (error) {
      throw new DrizzleQueryError(text, [...params], error instanceof Error ? error : undefined);
    }
  };
}

export function openPostgres(url: string, options: PostgresOptions = {}): Database {
  const connectTimeout = options.connectTimeoutSeconds ?? DATABASE_TIMEOUT_DEFAULTS.connectSeconds;
  const statementTimeout = options.statementTimeoutSeconds ?? DATABASE_TIMEOUT_DEFAULTS.statementSeconds;
  const named = options.applicationName === undefined ? {} : { application_name: options.applicationName };
  // postgres.js is patched (patches/postgres+3.4.9.patch): its queue otherwise slows down for as
  // long as more queries are in flight than the pool has connections (bench/README.md).
  //
  // Every wait on PostgreSQL is bounded, so that a database that is away, or a network that drops
  // packets, is a quick 503 (isDatabaseUnavailable) and never a request that hangs: opening a
  // connection (connect_timeout, the login included); a statement (statement_timeout: PostgreSQL
  // cancels it and the connection lives on); waiting for a free connection (queue_timeout: the query
  // fails unsent); and silence (answer_timeout: a connection that hears nothing back for longer than
  // PostgreSQL needs to cancel is dead, and is destroyed with its queries). The last two come from the
  // patch. The statement timeout covers this pool only, which serves requests, job handlers and
  // sweeps: short statements (the longest, a fan-out's one INSERT, takes about 1 s per 100,000
  // holders: bench/README.md). An upload's bytes are stored before its short transaction and a
  // download streams from the release store, so neither holds a statement open. Migrations run on a
  // connection of their own without it (withoutStatementTimeout), pg-boss's maintenance on pg-boss's
  // own pool, and `depot backup` exists for the embedded database only (PostgreSQL's is pg_dump).
  const client = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: connectTimeout,
    queue_timeout: statementTimeout,
    answer_timeout: statementTimeout + ANSWER_GRACE_SECONDS,
    backoff: reconnectDelay,
    // Notices such as "schema already exists, skipping" are noise in our JSON logs.
    onnotice: () => {},
    connection: {
      ...named,
      statement_timeout: statementTimeout * 1000,
      // depot's prepared statements are index look-ups whose plan does not depend on the values. Left
      // to choose, PostgreSQL keeps planning every execution anew for a statement whose LIMIT is a
      // parameter (its generic plan looks costlier than a custom one for LIMIT 16): a third of the
      // database's CPU for a purchase list (bench/README.md).
      plan_cache_mode: "force_generic_plan",
    },
  });
  // drizzle's postgres-js driver sends every query unprepared (drizzle-orm#6096): a parse and a plan
  // on the server and an extra round trip each time. depot's queries are a small set of shapes, so
  // postgres.js may prepare each once per connection and reuse it (bench/README.md, purchases).
  // Queries inside a transaction go through the transaction's own handle and stay unprepared.
  const unprepared = client.unsafe.bind(client);
  client.unsafe = ((query: string, params?: unknown[], queryOptions?: object) =>
    unprepared(query, params as never, { ...queryOptions, prepare: true })) as typeof client.unsafe;
  const db = drizzlePostgres({ client, schema, logger: queryLogger(options.log) }) as unknown as Db;
  return {
    kind: "postgres",
    db,
    pglite: null,
    url,
    rows: asDrizzleRuns(options.log, (text, params) =>
      client.unsafe(text, params as never, { prepare: true }).values(),
    ),
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`SELECT 1`), timeoutMs),
    pool: () => ({ max: client.options.max, ...client.stats }),
    async withoutStatementTimeout(fn) {
      const own = postgres(url, {
        max: 1,
        connect_timeout: connectTimeout,
        onnotice: () => {},
        // 0: none, whatever the role or the database sets.
        connection: {
          ...named,
          statement_timeout: 0,
        },
      });
      try {
        return await fn(
          drizzlePostgres({ client: own, schema, logger: queryLogger(options.log) }) as unknown as Db,
        );
      } finally {
        await own.end({ timeout: 5 });
      }
    },
    listen: async (channel, onPayload) => {
      await client.listen(channel, onPayload);
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Opens (creating on first use from the initial data: embedded-init.ts) the PGlite database in
 * `dataDir/db`, after taking the directory's lock.
 * The WASM module and the data bundle are imported as files so `bun build --compile` embeds them.
 *
 * Its files are private from the first start (docs/operators.md: File modes): the initial data is
 * unpacked 0700/0600. PostgreSQL makes its later files 0600, except its relation cache files, which it
 * rewrites as it starts after a schema change and PGlite's file system makes 0644 whatever the
 * process's umask: those are tightened at every open.
 */
export async function openEmbedded(dataDir: string, log?: Logger): Promise<Database> {
  const lock = lockDataDir(dataDir);
  try {
    const path = join(dataDir, "db");
    // Compiled while the first start unpacks.
    const assets = pgliteAssets();
    if (!isInitialised(path)) await initialise(path, await initialDataArchive());
    const pglite = await PGlite.create(path, await assets);
    tightenRelationCaches(path);
    return wrapPglite(pglite, lock.release, log);
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * `pg_internal.init` of the cluster (global/) and of each database (base/<oid>/), made 0600. One that
 * cannot be changed is left as it is: the private DATA_DIR still keeps it from others.
 */
function tightenRelationCaches(path: string): void {
  const databases = readdirSync(join(path, "base")).map((oid) => join(path, "base", oid));
  for (const dir of [join(path, "global"), ...databases]) {
    try {
      chmodSync(join(dir, "pg_internal.init"), PRIVATE_FILE);
    } catch {
      // Not written (yet), or not ours to change.
    }
  }
}

/** A Database over an already open PGlite (tests clone a migrated template in memory). */
export function wrapPglite(pglite: PGlite, onClose: () => void = () => {}, log?: Logger): Database {
  const db = drizzlePglite({ client: pglite, schema, logger: queryLogger(log) }) as unknown as Db;
  return {
    kind: "embedded",
    db,
    pglite,
    url: null,
    rows: asDrizzleRuns(
      log,
      async (text, params) =>
        (await pglite.query<unknown[]>(text, params as unknown[], { rowMode: "array" })).rows,
    ),
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    pool: () => null,
    withoutStatementTimeout: (fn) => fn(db),
    listen: async () => {},
    close: async () => {
      try {
        await pglite.close();
      } finally {
        onClose();
      }
    },
  };
}

let assets: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }>;

/**
 * PGlite's WASM module, compiled once per process, and its data bundle (which PGlite reads itself, once
 * per instance). initdb's module is not among them: depot never runs initdb on a data directory
 * (embedded-init.ts), and an in-memory PGlite in the tests and scripts, which does, reads it from
 * node_modules itself.
 */
export function pgliteAssets() {
  assets ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(await Bun.file(pgliteWasmPath).arrayBuffer()),
    fsBundle: Bun.file(fsBundlePath),
  }))();
  return assets;
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    // ETIMEDOUT, as a socket would say: start-up reports it as a database that does not answer.
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: "ETIMEDOUT" })),
      ms,
    );
  });
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
