import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { t } from "elysia";
import { fromPglite, PgBoss } from "pg-boss";
import { buildApp } from "../src/app.ts";
import { openPostgres } from "../src/db/client.ts";
import { selectRows } from "../src/db/rows.ts";
import { defineQueue } from "../src/jobs/registry.ts";
import { JobRunner } from "../src/jobs/runner.ts";
import { createLogger } from "../src/log.ts";
import { readJson, recordingLogger, startTestApp } from "./helpers/app.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

const log = createLogger("silent");

/** A queue whose handler records what it ran, so a test can wait for it. */
function recordingQueue(name: string) {
  const seen: string[] = [];
  const queue = defineQueue({
    name,
    payload: t.Object({ word: t.String() }),
    options: { retryLimit: 0 },
    async handle(_ctx, data) {
      seen.push(data.word);
    },
  });
  return { queue, seen };
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error("condition not met in time");
}

describe("job runner", () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  /** A runner for one recording queue on a fresh database, stopped after the tests. */
  async function startRunner(name: string, workers: boolean) {
    const app = await startTestApp();
    cleanup.push(() => app.close());
    const { queue, seen } = recordingQueue(name);
    const runner = new JobRunner(app.ctx.database, log, [queue]);
    cleanup.push(() => runner.stop(1000));
    await runner.start(app.ctx, { workers });
    return { runner, queue, seen };
  }

  test("workers run a queue's jobs with the typed payload; a malformed payload never reaches the handler", async () => {
    const { runner, queue, seen } = await startRunner("test.echo", true);

    await runner.send(queue, { word: "hello" });
    const bad = await runner.send(queue, { word: 42 } as never);
    await eventually(() => seen.includes("hello"));
    expect(seen).toEqual(["hello"]);
    expect(bad).toBeString();
  });

  test("a job whose worker died is run again within about 25 s of its heartbeat going stale", async () => {
    const app = await startTestApp();
    cleanup.push(() => app.close());
    const seen: string[] = [];
    const queue = defineQueue({
      name: "test.stranded",
      payload: t.Object({ word: t.String() }),
      // The least pg-boss allows; a fan-out has 15.
      options: { heartbeatSeconds: 10, retryLimit: 1 },
      async handle(_ctx, data) {
        seen.push(data.word);
      },
    });
    const runner = new JobRunner(app.ctx.database, log, [queue]);
    cleanup.push(() => runner.stop(1000));
    await runner.start(app.ctx, { workers: false });
    // pg-boss fails jobs with a stale heartbeat in its monitor pass, which claims each queue at most
    // every monitorIntervalSeconds (60 by default). The first pass claims it now, while nothing is stale.
    const monitored = async () =>
      (
        await selectRows<{ claimed: boolean }>(
          app.ctx.db,
          sql`SELECT monitor_claim_on IS NOT NULL AS claimed FROM pgboss.queue WHERE name = ${queue.name}`,
        )
      )[0]?.claimed === true;
    await eventually(monitored, 30_000);

    // A worker that takes the job and dies: nothing settles it, and its heartbeat goes stale.
    await runner.send(queue, { word: "stranded" });
    const { database } = app.ctx;
    const doomed = new PgBoss({
      ...(database.pglite
        ? { db: fromPglite(database.pglite), backend: "pglite" as const }
        : { connectionString: database.url ?? "" }),
      supervise: false,
      schedule: false,
    });
    await doomed.start();
    const [taken] = await doomed.fetch(queue.name);
    expect(taken?.data).toEqual({ word: "stranded" });
    await doomed.stop({ graceful: false, close: !database.pglite });
    const stale = Date.now() + 10_000;

    // The others' workers (here this process's, started after the death) run it again.
    await runner.stop(1000);
    await runner.start(app.ctx, { workers: true });
    await eventually(() => seen.includes("stranded"), 60_000);
    expect((Date.now() - stale) / 1000).toBeLessThan(25);
  }, 120_000);

  test("a sender-only runner (serve --no-workers) enqueues without running", async () => {
    const { runner, queue, seen } = await startRunner("test.quiet", false);
    expect(await runner.send(queue, { word: "later" })).toBeString();
    await Bun.sleep(1500);
    expect(seen).toEqual([]);
  });

  test("each start creates a missing queue, updates one whose options changed, and leaves the others be", async () => {
    const app = await startTestApp();
    cleanup.push(() => app.close());
    const definition = {
      name: "test.options",
      payload: t.Object({ word: t.String() }),
      options: { retryLimit: 3, retryDelay: 7 },
    };
    const startOnce = async (queue: ReturnType<typeof defineQueue>) => {
      const runner = new JobRunner(app.ctx.database, log, [queue]);
      await runner.start(app.ctx, { workers: false });
      await runner.stop(1000);
      const [row] = await selectRows<{ retry_limit: number; retry_delay: number; updated_on: string }>(
        app.ctx.db,
        sql`SELECT retry_limit, retry_delay, updated_on::text FROM pgboss.queue WHERE name = 'test.options'`,
      );
      return row;
    };

    const created = await startOnce(defineQueue(definition));
    expect(created).toEqual({ retry_limit: 3, retry_delay: 7, updated_on: expect.any(String) });
    // The same definition at the next start: the queue is not written to.
    expect(await startOnce(defineQueue(definition))).toEqual(created);
    // A release that changed its options: they apply.
    const changed = await startOnce(
      defineQueue({ ...definition, options: { retryLimit: 5, retryDelay: 7 } }),
    );
    expect(changed).toEqual({ retry_limit: 5, retry_delay: 7, updated_on: expect.any(String) });
    expect(changed?.updated_on).not.toBe(created?.updated_on);
  });
});

describe.if(onPostgres)("a database outage (PostgreSQL behind a TCP proxy)", () => {
  test("health answers 503 while the database is gone and 200 after, and workers come back by themselves", async () => {
    const fresh = await freshDatabase();
    const direct = new URL(fresh.url ?? "");
    const proxy = await startTcpProxy({ hostname: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.port = String(proxy.port);
    const database = openPostgres(viaProxy.toString(), { max: 3 });
    const { queue, seen } = recordingQueue("test.outage");
    const app = await startTestApp({ database });
    const runner = new JobRunner(database, log, [queue]);
    try {
      await runner.start(app.ctx, { workers: true, superviseIntervalMs: 200 });
      const server = buildApp(app.ctx);
      const health = () => server.handle(new Request("http://localhost/api/health"));
      expect((await health()).status).toBe(200);

      proxy.cut();
      const down = await health();
      expect(down.status).toBe(503);
      expect(await readJson(down)).toEqual({ message: "Database unavailable." });
      await Bun.sleep(1000); // long enough for the workers' polls to fail

      proxy.restore();
      await eventually(async () => (await health()).status === 200);
      expect(await readJson(await health())).toEqual({ status: "ok" });

      await eventually(() => runner.running && runner.restarts > 0);
      await runner.send(queue, { word: "after the outage" });
      await eventually(() => seen.includes("after the outage"));
    } finally {
      await runner.stop(1000);
      await app.close();
      proxy.cut();
      await fresh.drop();
    }
  }, 60_000);

  test("the queue's failures during an outage are logged with their name, message and code", async () => {
    const fresh = await freshDatabase();
    const direct = new URL(fresh.url ?? "");
    const proxy = await startTcpProxy({ hostname: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.port = String(proxy.port);
    const database = openPostgres(viaProxy.toString(), { max: 3 });
    const { queue } = recordingQueue("test.logged");
    const app = await startTestApp({ database });
    const recorder = recordingLogger("warn");
    const runner = new JobRunner(database, recorder.log, [queue]);
    const logged = () => recorder.lines.filter((line) => line.msg === "job queue error");
    try {
      await runner.start(app.ctx, { workers: true, superviseIntervalMs: 200 });
      proxy.cut();
      // pg-boss reports a worker's failed fetch as a copy of the error's fields, which was logged as
      // {"message":"[object Object]"}: the connection that went, then the ones refused.
      const refused = (line: Record<string, unknown>) =>
        line.queue === "test.logged" && (line.error as { code?: string }).code === "ECONNREFUSED";
      await eventually(() => logged().some(refused));
      for (const line of logged()) {
        const error = line.error as Record<string, unknown>;
        expect(error.name).toBeString();
        expect(error.message).toBeString();
        expect(error.message).not.toBe("[object Object]");
      }
      const fromWorker = logged().find(refused);
      expect(fromWorker?.error).toMatchObject({
        name: "Error",
        message: expect.stringContaining("ECONNREFUSED"),
        code: "ECONNREFUSED",
      });
      expect((fromWorker?.error as { stack?: string } | undefined)?.stack).toContain("    at ");
    } finally {
      proxy.restore();
      await runner.stop(1000);
      await app.close();
      proxy.cut();
      await fresh.drop();
    }
  }, 60_000);
});
