/**
 * Nothing lost, nothing twice (issue 6): `depot worker` processes against one PostgreSQL, killed with
 * SIGKILL mid-fan-out and restarted, or two of them at once — every holder ends up with exactly one
 * notification, one e-mail and one webhook delivery per endpoint.
 *
 * Several processes sharing one database is what PostgreSQL is for; the embedded database belongs to
 * one process, so these run only with a PostgreSQL URL (CI always has one).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { selectRows } from "../src/db/rows.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { cliEnv } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";

const HOLDERS = 3000;
const APP_KEY = "reliability-test-app-key-0123456789abcdef";
const MAIN = join(import.meta.dir, "../src/main.ts");

let fresh: TestDatabase;
let t: TestApp;
let base: string;
let ownerToken: string;
let productId: number;
const workers = new Set<Subprocess>();
/** Messages the SMTP sink accepted, by recipient. */
const mailsTo = new Map<string, number>();
/** Deliveries each receiver got, by webhook-id. */
const deliveries = { holder: new Map<string, number>(), owner: new Map<string, number>() };
let smtp: SMTPServer;
let smtpPort = 0;
let receiver: ReturnType<typeof Bun.serve>;

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

function startWorker(): Subprocess {
  const worker = Bun.spawn([process.execPath, MAIN, "worker"], {
    env: cliEnv({
      DATABASE_URL: fresh.url ?? "",
      DATA_DIR: t.ctx.config.dataDir,
      APP_KEY,
      APP_URL: "http://depot.test",
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      WEBHOOK_ALLOW_PRIVATE: "true",
    }),
    stdout: "ignore",
    stderr: "pipe",
  });
  workers.add(worker);
  return worker;
}

async function stopWorkers() {
  for (const worker of workers) worker.kill("SIGTERM");
  await Promise.all([...workers].map((worker) => worker.exited));
  workers.clear();
}

async function publish(name: string): Promise<number> {
  const form = new FormData();
  form.set("version_name", name);
  form.set("title", `Release ${name}`);
  form.set("changelog", "- more reliable");
  form.set("file", new File([`release ${name}`], "release.jar"));
  const response = await fetch(`${base}/api/products/${productId}/versions`, {
    method: "POST",
    headers: bearer(ownerToken),
    body: form,
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).data.id;
}

const scalar = async (query: ReturnType<typeof sql>) =>
  (await selectRows<{ n: number }>(t.ctx.db, query))[0]?.n ?? 0;

/** Polls until every holder has its notification, its e-mail and both endpoints their delivery. */
async function settled(versionId: number, versionNumber: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const notifications = () =>
    scalar(sql`SELECT count(*)::int AS n FROM notifications WHERE version_id = ${versionId}`);
  while (Date.now() < deadline) {
    const done =
      (await notifications()) === HOLDERS &&
      [...mailsTo.keys()].filter((key) => key.endsWith(` ${versionNumber}`)).length >= HOLDERS &&
      deliveries.holder.size > 0 &&
      deliveries.owner.size > 0;
    if (done) return;
    await Bun.sleep(250);
  }
}

describe.skipIf(!onPostgres)("fan-out reliability (PostgreSQL: several worker processes)", () => {
  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onData(stream, session, callback) {
        let head = "";
        stream.on("data", (chunk: Buffer) => {
          if (head.length < 4096) head += chunk.toString("utf8");
        });
        stream.on("end", () => {
          // Counted per recipient and version, so a previous test's late e-mails cannot pass for duplicates.
          const version = /^Subject: .*?(\d+\.\d+\.\d+)/m.exec(head)?.[1] ?? "?";
          for (const to of session.envelope.rcptTo) count(mailsTo, `${to.address} ${version}`);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
    receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const who = new URL(request.url).pathname === "/owner" ? "owner" : "holder";
        count(deliveries[who], request.headers.get("webhook-id") ?? "");
        await request.text();
        return new Response(null, { status: 204 });
      },
    });

    fresh = await freshDatabase();
    t = await startTestApp({
      database: fresh.database,
      jobs: "send",
      env: { APP_KEY, WEBHOOK_ALLOW_PRIVATE: "true", SMTP_URL: `smtp://127.0.0.1:${smtpPort}` },
    });
    base = t.listen();
    const owner = await createUser(t.ctx, { role: "vendor" });
    ownerToken = await tokenFor(t.ctx, owner);
    productId = (await createProduct(t.ctx, owner)).id;
    await t.ctx.db.execute(sql`
      INSERT INTO users (name, email, role_id)
      SELECT 'Holder ' || g, 'holder' || g || '@reliability.test', (SELECT id FROM roles WHERE name = 'customer')
      FROM generate_series(1, ${HOLDERS}) g`);
    await t.ctx.db.execute(sql`
      INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
      SELECT gen_random_uuid(), 'REL-' || u.id, u.id, ${owner.id}, ${productId}, 1
      FROM users u WHERE u.email LIKE 'holder%@reliability.test'`);
    // One holder's endpoint and the owner's endpoint.
    const [holder] = await selectRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT id FROM users WHERE email = 'holder1@reliability.test'`,
    );
    for (const [userId, path] of [
      [holder?.id ?? 0, "/holder"],
      [owner.id, "/owner"],
    ] as const) {
      const response = await fetch(`${base}/api/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(await tokenFor(t.ctx, { id: userId })) },
        body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}${path}` }),
      });
      expect(response.status).toBe(201);
    }
  }, 60_000);

  afterAll(async () => {
    await stopWorkers();
    receiver?.stop(true);
    smtp?.close();
    await t?.close();
    await fresh?.drop();
  });

  const reset = () => {
    mailsTo.clear();
    deliveries.holder.clear();
    deliveries.owner.clear();
  };

  const expectExactlyOnce = async (versionId: number, versionNumber: string) => {
    expect(
      await scalar(sql`SELECT count(*)::int AS n FROM notifications WHERE version_id = ${versionId}`),
    ).toBe(HOLDERS);
    expect(
      await scalar(
        sql`SELECT count(DISTINCT user_id)::int AS n FROM notifications WHERE version_id = ${versionId}`,
      ),
    ).toBe(HOLDERS);
    const mails = [...mailsTo].filter(([key]) => key.endsWith(` ${versionNumber}`));
    expect(mails.length).toBe(HOLDERS);
    expect(mails.every(([, n]) => n === 1)).toBe(true);
    expect([...deliveries.holder.values()]).toEqual([1]);
    expect([...deliveries.owner.values()]).toEqual([1]);
  };

  test("a worker killed with SIGKILL mid-fan-out, then restarted: exactly once", async () => {
    reset();
    const versionId = await publish("1.0.0");
    const first = startWorker();
    // Kill it while it works on the fan-out: once the job is active, before it completes.
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const active = await scalar(
        sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'version.published' AND state = 'active'`,
      );
      if (active > 0) break;
      await Bun.sleep(20);
    }
    await Bun.sleep(Math.floor(Math.random() * 300));
    first.kill("SIGKILL");
    await first.exited;
    workers.delete(first);

    startWorker();
    await settled(versionId, "1.0.0", 90_000);
    await Bun.sleep(1000); // anything sent twice would arrive now
    await expectExactlyOnce(versionId, "1.0.0");
    await stopWorkers();
  }, 120_000);

  test("two workers at once: exactly once", async () => {
    reset();
    startWorker();
    startWorker();
    const versionId = await publish("2.0.0");
    await settled(versionId, "2.0.0", 90_000);
    await Bun.sleep(1000);
    await expectExactlyOnce(versionId, "2.0.0");
    await stopWorkers();
  }, 120_000);
});
