import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import initdbWasmPath from "@electric-sql/pglite/initdb.wasm" with { type: "file" };
import fsBundlePath from "@electric-sql/pglite/pglite.data" with { type: "file" };
import pgliteWasmPath from "@electric-sql/pglite/pglite.wasm" with { type: "file" };
import { type Logger as DrizzleLogger, sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Logger } from "../log.ts";
import { lockDataDir } from "./embedded-lock.ts";
import { QueryGate } from "./query-gate.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The Drizzle handle every service uses, whichever database is behind it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: "postgres" | "embedded";
  readonly db: Db;
  /** Set for the embedded database; pg-boss talks to it through `fromPglite`. */
  readonly pglite: PGlite | null;
  /** Set for PostgreSQL; pg-boss opens its own pool from it. */
  readonly url: string | null;
  /** Resolves when the database answers `SELECT 1` within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * At LOG_LEVEL=debug every statement is logged (its text, never its parameters: they hold token
 * hashes, keys and e-mail addresses).
 */
function queryLogger(log: Logger | undefined): DrizzleLogger | undefined {
  if (!log?.enabled("debug")) return undefined;
  return { logQuery: (query) => log.debug("query", { sql: query }) };
}

export function openPostgres(url: string, options: { max?: number; log?: Logger } = {}): Database {
  const max = options.max ?? 10;
  const client = postgres(url, {
    max,
    connect_timeout: 5,
    // Notices such as "schema already exists, skipping" are noise in our JSON logs.
    onnotice: () => {},
  });
  // drizzle's postgres-js driver sends every query unprepared (drizzle-orm#6096): a parse and a plan
  // on the server and an extra round trip each time. depot's queries are a small set of shapes, so
  // postgres.js may prepare each once per connection and reuse it (bench/README.md, purchases).
  // Queries inside a transaction go through the transaction's own handle and stay unprepared.
  const unprepared = client.unsafe.bind(client);
  const gate = new QueryGate(max);
  client.unsafe = ((query: string, params?: unknown[], queryOptions?: { onexecute?: unknown }) =>
    // postgres.js's begin() sends its BEGIN through this same function, marked with `onexecute`: that
    // statement belongs to the transaction, which already holds its slot.
    queryOptions?.onexecute
      ? unprepared(query, params as never, queryOptions as never)
      : gated(
          gate,
          unprepared(query, params as never, { ...queryOptions, prepare: true }),
        )) as typeof client.unsafe;
  // A transaction holds one connection from BEGIN to COMMIT: one unit of the gate.
  const begin = client.begin.bind(client);
  client.begin = ((...args: Parameters<typeof client.begin>) =>
    gate.run(() => begin(...args) as Promise<unknown>)) as typeof client.begin;
  const db = drizzlePostgres({ client, schema, logger: queryLogger(options.log) }) as unknown as Db;
  return {
    kind: "postgres",
    db,
    pglite: null,
    url,
    ping: (timeoutMs = 2000) => withTimeout(db.execute(sql`SELECT 1`), timeoutMs),
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * Opens (creating on first use) the PGlite database in `dataDir/db`, after taking the directory's lock.
 * The WASM modules and the data bundle are imported as files so `bun build --compile` embeds them.
 */
export async function openEmbedded(dataDir: string, log?: Logger): Promise<Database> {
  const lock = lockDataDir(dataDir);
  try {
    const path = join(dataDir, "db");
    mkdirSync(path, { recursive: true });
    return wrapPglite(await PGlite.create(path, await pgliteAssets()), lock.release, log);
  } catch (error) {
    lock.release();
    throw error;
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
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    close: async () => {
      try {
        await pglite.close();
      } finally {
        onClose();
      }
    },
  };
}

let assets: Promise<{
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
}>;

export function pgliteAssets() {
  assets ??= (async () => {
    const [pgliteWasmModule, initdbWasmModule, fsBundle] = await Promise.all([
      WebAssembly.compile(await Bun.file(pgliteWasmPath).arrayBuffer()),
      WebAssembly.compile(await Bun.file(initdbWasmPath).arrayBuffer()),
      Bun.file(fsBundlePath).arrayBuffer(),
    ]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([fsBundle]) };
  })();
  return assets;
}

/**
 * A postgres.js query that enters the pool only through `gate`. postgres.js queries are lazy: they
 * start when first awaited, by calling their handler, which is swapped here for one that waits for a
 * slot and holds it until the query settles. The query object itself is returned as it was, so
 * `.values()` and the rest still work.
 */
function gated<Q extends PromiseLike<unknown>>(gate: QueryGate, query: Q): Q {
  const pending = query as Q & { handler: ((q: Q) => void) & { debug?: unknown } };
  const start = pending.handler;
  const settled = (q: Q) =>
    new Promise<void>((done) =>
      Promise.prototype.then.call(
        q,
        () => done(),
        () => done(),
      ),
    );
  pending.handler = Object.assign(
    (q: Q) => {
      void gate.run(() => {
        start(q);
        return settled(q);
      });
    },
    { debug: start.debug },
  );
  return query;
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
