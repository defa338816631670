import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, stderrLines } from "./helpers/cli.ts";
import { freshDatabase } from "./helpers/db.ts";
import { startS3 } from "./helpers/s3.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

/**
 * Readiness (`GET /api/health/ready`, `depot healthcheck --ready`): 200 only when the database
 * answers, the migrations are current, STORAGE_DIR takes a write and a started job runner runs;
 * otherwise 503 naming what failed. Through listening servers on real databases.
 */

setDefaultTimeout(30_000);

const READY_CHECKS = { database: "ok", migrations: "ok", storage: "ok", jobs: "ok" };

let t: TestApp;
let base: string;
let storageDir: string;

beforeAll(async () => {
  storageDir = join(tmpdir(), `depot-ready-${crypto.randomUUID()}`);
  t = await startTestApp({ jobs: "workers", env: { STORAGE_DIR: storageDir } });
  base = t.listen();
}, 60_000);
afterAll(async () => {
  await t.close();
  rmSync(storageDir, { recursive: true, force: true });
}, 30_000);

const ready = async (url = base) => {
  const response = await fetch(`${url}/api/health/ready`);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  return { status: response.status, body: await readJson(response) };
};

describe("GET /api/health/ready", () => {
  test("200 with every check ok, and no probe file left behind", async () => {
    const before = readdirSync(storageDir).sort();
    expect(await ready()).toEqual({ status: 200, body: { status: "ready", checks: READY_CHECKS } });
    expect(readdirSync(storageDir).sort()).toEqual(before);
  });

  test("a release store that is gone or not a directory: 503 naming storage; back to 200 once it is fixed", async () => {
    rmSync(storageDir, { recursive: true, force: true });
    expect(await ready()).toEqual({
      status: 503,
      body: { message: "Not ready.", checks: { ...READY_CHECKS, storage: "not writable (ENOENT)" } },
    });
    writeFileSync(storageDir, "a file where the directory was");
    expect(await ready()).toEqual({
      status: 503,
      body: { message: "Not ready.", checks: { ...READY_CHECKS, storage: "not writable (ENOTDIR)" } },
    });
    // Liveness does not look at the disk: the process is alive, only not ready.
    const live = await fetch(`${base}/api/health`);
    expect(live.status).toBe(200);
    expect(await readJson(live)).toEqual({ status: "ok" });

    rmSync(storageDir, { force: true });
    mkdirSync(storageDir);
    expect(await ready()).toEqual({ status: 200, body: { status: "ready", checks: READY_CHECKS } });
  });

  test("a migration not applied: 503 naming migrations", async () => {
    const [last] = await selectRows<{ hash: string; created_at: string }>(
      t.ctx.db,
      sql`DELETE FROM drizzle.__drizzle_migrations
          WHERE id = (SELECT max(id) FROM drizzle.__drizzle_migrations) RETURNING hash, created_at::text`,
    );
    if (!last) throw new Error("no migration recorded");
    try {
      expect(await ready()).toEqual({
        status: 503,
        body: {
          message: "Not ready.",
          checks: { ...READY_CHECKS, migrations: "1 pending (run depot migrate or restart)" },
        },
      });
    } finally {
      // Its statements never went away: recording it again makes the schema current.
      await t.ctx.db.execute(
        sql`INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES (${last.hash}, ${Number(last.created_at)})`,
      );
    }
    expect((await ready()).status).toBe(200);
  });

  test("without a job runner there is no jobs check; a stopped one fails it", async () => {
    const plain = await startTestApp();
    try {
      const url = plain.listen();
      expect(await ready(url)).toEqual({
        status: 200,
        body: { status: "ready", checks: { database: "ok", migrations: "ok", storage: "ok" } },
      });
      await plain.ctx.jobs.start(plain.ctx, { workers: false, superviseIntervalMs: 500 });
      expect((await ready(url)).body.checks.jobs).toBe("ok");
      // Shutting down: the runner stopped, so the instance should get no more traffic.
      await plain.ctx.jobs.stop(1000);
      expect(await ready(url)).toEqual({
        status: 503,
        body: {
          message: "Not ready.",
          checks: { database: "ok", migrations: "ok", storage: "ok", jobs: "not running" },
        },
      });
    } finally {
      await plain.close();
    }
  });

  test("a database that stops answering: 503 naming database (and migrations, which it holds)", async () => {
    const fresh = await freshDatabase();
    const app = await startTestApp({ database: fresh.database });
    try {
      const url = app.listen();
      expect((await ready(url)).status).toBe(200);
      await fresh.database.close();
      expect(await ready(url)).toEqual({
        status: 503,
        body: {
          message: "Not ready.",
          checks: { database: "unavailable", migrations: "could not be checked", storage: "ok" },
        },
      });
      // Liveness says the same as before, in its own words.
      const live = await fetch(`${url}/api/health`);
      expect(live.status).toBe(503);
      expect(await readJson(live)).toEqual({ message: "Database unavailable." });
    } finally {
      await app.close().catch(() => {});
      await fresh.drop().catch(() => {});
    }
  });
});

describe("with the releases in an object store (STORAGE_URL)", () => {
  test("the store unreachable: 503 naming storage; back to 200 once it answers, without a restart", async () => {
    const s3 = await startS3();
    const proxy = await startTcpProxy({ hostname: "127.0.0.1", port: s3.port });
    const app = await startTestApp({
      env: { ...s3.env("ready"), S3_ENDPOINT: `http://127.0.0.1:${proxy.port}` },
    });
    try {
      const url = app.listen();
      const okChecks = { database: "ok", migrations: "ok", storage: "ok" };
      expect(await ready(url)).toEqual({ status: 200, body: { status: "ready", checks: okChecks } });
      proxy.cut();
      expect(await ready(url)).toEqual({
        status: 503,
        body: { message: "Not ready.", checks: { ...okChecks, storage: "unavailable" } },
      });
      proxy.restore();
      expect(await ready(url)).toEqual({ status: 200, body: { status: "ready", checks: okChecks } });
      // The probe wrote nothing to the bucket.
      expect(await s3.keys()).toEqual([]);
    } finally {
      await app.close();
      proxy.cut();
      await s3.close();
    }
  });
});

describe("depot healthcheck --ready", () => {
  test("exit 0 when ready, 1 naming the failing check when not, 1 when nothing answers", async () => {
    expect(await depot(["healthcheck", "--ready", "--url", base])).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
    // --url may also be the full readiness or liveness URL.
    expect((await depot(["healthcheck", "--ready", "--url", `${base}/api/health/ready`])).code).toBe(0);
    expect((await depot(["healthcheck", "--ready", "--url", `${base}/api/health`])).code).toBe(0);

    rmSync(storageDir, { recursive: true, force: true });
    try {
      const notReady = await depot(["healthcheck", "--ready", "--url", base]);
      expect(notReady.code).toBe(1);
      expect(stderrLines(notReady)).toEqual([
        `unhealthy: ${base}/api/health/ready answered 503 (storage: not writable (ENOENT))`,
      ]);
      // Liveness is still fine: without --ready the same server passes.
      expect((await depot(["healthcheck", "--url", base])).code).toBe(0);
    } finally {
      mkdirSync(storageDir);
    }

    const nobody = await depot(["healthcheck", "--ready", "--url", "http://127.0.0.1:9"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toStartWith("unhealthy: http://127.0.0.1:9/api/health/ready: ");
  });

  test("--help describes --ready", async () => {
    const help = await depot(["healthcheck", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("depot healthcheck [--ready] [--url BASE_URL]");
    expect(help.stdout).toContain("--ready asks readiness");
  });
});
