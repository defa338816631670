import { expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { selectRows } from "../src/db/rows.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * How depot drives PostgreSQL: a patched postgres.js, and generic plans for its prepared statements.
 *
 * postgres.js 3.4.9's internal queue never compacts while it is non-empty, which under sustained load
 * (more queries in flight than connections) makes every query slower for as long as the load lasts.
 * `npm install` applies patches/postgres+3.4.9.patch (the postinstall script runs patch-package): each
 * build of the module that Bun, Node or a worker may load must carry the compaction.
 */
test.each(["src", "cjs/src", "cf/src"])("node_modules/postgres/%s/queue.js is patched", async (dir) => {
  const queue = await Bun.file(join(import.meta.dir, "../node_modules/postgres", dir, "queue.js")).text();
  expect(queue).toContain("if (index >= 32 && index * 2 >= xs.length) {");
  expect(queue).toContain("xs = xs.slice(index)");
});

/**
 * The same patch gives the client a read-only `sql.stats`: the pool's connections by state and the
 * queries waiting for one (depot's pool gauges, README Metrics), in every build.
 */
test.each(["src", "cjs/src", "cf/src"])("node_modules/postgres/%s/index.js has sql.stats", async (dir) => {
  const index = await Bun.file(join(import.meta.dir, "../node_modules/postgres", dir, "index.js")).text();
  expect(index).toContain("Object.defineProperty(sql, 'stats', {");
  expect(index).toContain("waiting: queries.length");
});

test("the CommonJS build's sql.stats works too: a new pool has every connection closed", async () => {
  const cjs: typeof postgres = require("../node_modules/postgres/cjs/src/index.js");
  const client = cjs({ max: 3 });
  const expected = {
    idle: 0,
    busy: 0,
    full: 0,
    reserved: 0,
    connecting: 0,
    closed: 3,
    ending: 0,
    waiting: 0,
  };
  expect(client.stats).toEqual(expected);
  // A getter, not a copy taken when the client was made; and nobody outside may set it.
  expect(Object.getOwnPropertyDescriptor(client, "stats")?.get).toBeFunction();
  expect(() => Object.assign(client, { stats: null })).toThrow();
  await client.end();
});

/**
 * The patch also bounds every wait on the server (answer_timeout, queue_timeout) and mends two ways a
 * connection that closed under a query stayed broken; depot's pool relies on all of it (db/client.ts).
 */
test.each(["src", "cjs/src", "cf/src"])(
  "node_modules/postgres/%s has the timeouts and the teardown fixes",
  async (dir) => {
    const read = (file: string) =>
      Bun.file(join(import.meta.dir, "../node_modules/postgres", dir, file)).text();
    const connection = await read("connection.js");
    expect(connection).toContain("answerTimer = timer(answerTimedOut, options.answer_timeout)");
    expect(connection.split("chunk = nextWriteTimer = null").length - 1).toBe(3);
    const index = await read("index.js");
    expect(index).toContain("queries.remove(query) && query.reject(Errors.connection('QUEUE_TIMEOUT'");
    expect(index).toContain("connection.onclose = e => reject(lost = e)");
  },
);

test("the patch is for the installed version", async () => {
  const pkg = await Bun.file(join(import.meta.dir, "../node_modules/postgres/package.json")).json();
  expect(pkg.version).toBe("3.4.9");
  expect(await Bun.file(join(import.meta.dir, "../patches/postgres+3.4.9.patch")).exists()).toBe(true);
});

test.if(onPostgres)(
  "depot's PostgreSQL connections plan their prepared statements once (generic plans)",
  async () => {
    const fresh = await freshDatabase();
    try {
      const rows = await selectRows<{ plan_cache_mode: string }>(
        fresh.database.db,
        sql`SHOW plan_cache_mode`,
      );
      expect(rows).toEqual([{ plan_cache_mode: "force_generic_plan" }]);
    } finally {
      await fresh.drop();
    }
  },
);

/** Polls `read` until `done` holds (or 5 s pass) and returns the last value read. */
async function until<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 5000;
  let value = read();
  while (!done(value) && Date.now() < deadline) {
    await Bun.sleep(10);
    value = read();
  }
  return value;
}

test.if(onPostgres)(
  "sql.stats follows the pool: busy while a query runs, waiting while every connection is held",
  async () => {
    const fresh = await freshDatabase();
    const client = postgres(fresh.url ?? "", { max: 2, onnotice: () => {} });
    // Every connection is in exactly one state; `waiting` counts queries, not connections.
    const total = () => Object.entries(client.stats).reduce((n, [k, v]) => (k === "waiting" ? n : n + v), 0);
    try {
      expect(client.stats).toMatchObject({ closed: 2, idle: 0, busy: 0, connecting: 0, waiting: 0 });

      // A connection opened for a query counts as connecting until that first query is done.
      const first = client`SELECT pg_sleep(0.3)`.execute();
      expect(
        await until(
          () => client.stats.connecting,
          (n) => n === 1,
        ),
      ).toBe(1);
      expect(total()).toBe(2);
      await first;
      expect(client.stats).toMatchObject({ idle: 1, closed: 1, connecting: 0, busy: 0 });

      // Both connections reserved: the next queries have nowhere to go and wait.
      const held = [await client.reserve(), await client.reserve()];
      expect(client.stats).toMatchObject({ reserved: 2, idle: 0, closed: 0, waiting: 0 });
      const queued = [client`SELECT 1 AS one`.execute(), client`SELECT 2 AS two`.execute()];
      expect(
        await until(
          () => client.stats.waiting,
          (n) => n === 2,
        ),
      ).toBe(2);
      expect(total()).toBe(2);

      // A released connection takes the waiting queries.
      held[0]?.release();
      expect((await Promise.all(queued)).map((rows) => rows[0])).toEqual([{ one: 1 }, { two: 2 }]);
      expect(client.stats).toMatchObject({ reserved: 1, waiting: 0 });
      held[1]?.release();
      expect(client.stats).toMatchObject({ idle: 2, busy: 0, full: 0, reserved: 0, waiting: 0 });

      // On an open connection a running query makes it busy.
      const slow = client`SELECT pg_sleep(0.3)`.execute();
      expect(
        await until(
          () => client.stats.busy,
          (n) => n === 1,
        ),
      ).toBe(1);
      expect(client.stats).toMatchObject({ idle: 1, connecting: 0 });
      await slow;
      expect(client.stats).toMatchObject({ idle: 2, busy: 0, waiting: 0 });
    } finally {
      await client.end();
      await fresh.drop();
    }
  },
  20_000,
);

/** A proxy in front of a fresh database, and a postgres.js client through it. */
async function throughProxy(options: postgres.Options<Record<string, never>>) {
  const fresh = await freshDatabase();
  const direct = new URL(fresh.url ?? "");
  const proxy = await startTcpProxy({ hostname: direct.hostname, port: Number(direct.port || 5432) });
  const url = new URL(direct);
  url.port = String(proxy.port);
  const client = postgres(url.toString(), { onnotice: () => {}, ...options });
  return {
    client,
    proxy,
    async close() {
      await client.end({ timeout: 1 });
      proxy.cut();
      await fresh.drop();
    },
  };
}

/** How a query ended: its rows' first value, or its error's code, and how long it took. */
async function outcome(query: Promise<unknown>) {
  const started = performance.now();
  try {
    const rows = (await query) as Record<string, unknown>[];
    return { ok: Object.values(rows[0] ?? {})[0], ms: performance.now() - started };
  } catch (error) {
    return { code: (error as { code?: string }).code, ms: performance.now() - started };
  }
}

test.if(onPostgres)(
  "a transaction whose connection closes under it leaves the connection usable (no stray ROLLBACK written)",
  async () => {
    // Unpatched, the transaction's ROLLBACK was written to the closed socket from a setImmediate (an
    // uncaught TypeError) and its bytes went out ahead of the next socket's StartupMessage: the one
    // connection never opened again, every query a CONNECT_TIMEOUT.
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    const { client, proxy, close } = await throughProxy({ max: 1, connect_timeout: 2 });
    try {
      expect(await outcome(client`SELECT 1 AS one`)).toMatchObject({ ok: 1 });
      const transaction = client.begin(async (tx) => {
        await tx`SELECT 1`;
        const slow = tx`SELECT pg_sleep(1)`;
        setTimeout(() => proxy.cut(), 100);
        await slow;
      });
      expect(await outcome(transaction)).toMatchObject({ code: "CONNECTION_CLOSED" });
      proxy.restore();
      for (let i = 0; i < 3; i++) expect(await outcome(client`SELECT 2 AS two`)).toMatchObject({ ok: 2 });
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", record);
      await close();
    }
  },
  30_000,
);

test.if(onPostgres)(
  "answer_timeout: a connection that stops answering fails its queries and is replaced",
  async () => {
    const { client, proxy, close } = await throughProxy({ max: 1, connect_timeout: 2, answer_timeout: 1 });
    try {
      expect(await outcome(client`SELECT 1 AS one`)).toMatchObject({ ok: 1 });
      proxy.blackhole();
      // Pipelined behind the first, the second fails with it.
      const [first, second] = await Promise.all([
        outcome(client`SELECT 1 AS one`),
        outcome(client`SELECT 2 AS two`),
      ]);
      for (const failed of [first, second]) {
        expect(failed.code).toBe("ANSWER_TIMEOUT");
        expect(failed.ms).toBeGreaterThanOrEqual(900);
        expect(failed.ms).toBeLessThan(5000);
      }
      proxy.restore();
      expect(await outcome(client`SELECT 3 AS three`)).toMatchObject({ ok: 3 });
      // A statement that answers late but within the limit is no silence.
      expect(await outcome(client`SELECT pg_sleep(0.5), 4 AS four`)).toMatchObject({ ok: "" });
    } finally {
      await close();
    }
  },
  30_000,
);

test.if(onPostgres)(
  "queue_timeout: a query that waits longer for a connection fails unsent",
  async () => {
    const { client, close } = await throughProxy({ max: 1, queue_timeout: 1 });
    try {
      await client`CREATE TABLE queued (n int)`;
      const held = await client.reserve();
      const waiting = await outcome(client`INSERT INTO queued VALUES (1) RETURNING n`);
      expect(waiting.code).toBe("QUEUE_TIMEOUT");
      expect(waiting.ms).toBeGreaterThanOrEqual(900);
      expect(waiting.ms).toBeLessThan(5000);
      held.release();
      // It never reached the server, not even once the connection was free.
      expect(await outcome(client`SELECT count(*)::int FROM queued`)).toMatchObject({ ok: 0 });
    } finally {
      await close();
    }
  },
  30_000,
);
