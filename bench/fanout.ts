// Notification fan-out at scale (bench/README.md, issue 6).
//
//   npm run build && bun bench/fanout.ts [--holders 100000] [--publishes 15]
//
// Against dist/depot on PostgreSQL (database depot_bench_fanout, recreated each run):
// 1. Seeds a vendor, product A with N license holders and product B with none (set-based SQL).
// 2. Publish latency: `depot serve --no-workers` (so no fan-out competes), publishes alternately to
//    A and B and reports p50/p90 of each. The fan-out is asynchronous, so A should cost what B costs.
//    Those jobs are then dropped from the queue.
// 3. Fan-out: one more publish to A, then `depot worker` starts (SMTP_URL points at an in-process
//    SMTP sink that accepts and discards) and the run reports the time from the worker's start until
//    all N notifications exist, and until all N e-mail jobs are queued.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SMTPServer } from "smtp-server";
import {
  builtBinary,
  createToken,
  createUser,
  depotBinary,
  depotCli,
  depotEnv,
  startDepot,
} from "./lib/depot.ts";
import { BenchDatabase } from "./lib/postgres.ts";
import { runMain, tempDir, track } from "./lib/processes.ts";
import { freePort, percentile } from "./lib.ts";

const { values } = parseArgs({
  options: { holders: { type: "string", default: "100000" }, publishes: { type: "string", default: "15" } },
});
const HOLDERS = Number(values.holders);
const PUBLISHES = Number(values.publishes);
const database = new BenchDatabase(
  "depot_bench_fanout",
  process.env.BENCH_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/postgres",
);
const BINARY = depotBinary();

const work = tempDir("depot-fanout-");
const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: work, LOG_LEVEL: "warn" });
const depot = depotCli(BINARY, env);

async function main(): Promise<number> {
  if (!builtBinary(BINARY, "npm run build && bun bench/fanout.ts")) return 1;

  // ---- database ----
  await database.recreate();
  await depot(["migrate"]);
  const sql = database.connect(10);

  const seedStart = performance.now();
  const vendorId = await createUser(depot, { name: "Vendor", email: "vendor@bench.test", role: "admin" });
  const token = await createToken(depot, vendorId);
  const [productA] =
    await sql`INSERT INTO products (name, slug, user_id) VALUES ('Popular', 'popular', ${vendorId}) RETURNING id`;
  const [productB] =
    await sql`INSERT INTO products (name, slug, user_id) VALUES ('Niche', 'niche', ${vendorId}) RETURNING id`;
  await sql`
    INSERT INTO users (name, email, role_id)
    SELECT 'Holder ' || g, 'holder' || g || '@bench.test', (SELECT id FROM roles WHERE name = 'customer')
    FROM generate_series(1, ${HOLDERS}) g`;
  await sql`
    INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
    SELECT gen_random_uuid(), 'BENCH-' || u.id, u.id, ${vendorId}, ${productA?.id}, 1
    FROM users u WHERE u.email LIKE 'holder%@bench.test'`;
  await sql`ANALYZE`;
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // ---- publish latency, no workers ----
  const server = await startDepot({ binary: BINARY, env });
  const base = server.origin;
  const release = join(work, "release.jar");
  writeFileSync(release, crypto.getRandomValues(new Uint8Array(64 * 1024)));

  let sequence = 0;
  async function publish(productId: number): Promise<{ ms: number; id: number }> {
    const form = new FormData();
    form.set("version_name", `1.0.${++sequence}`);
    form.set("title", "Bench");
    form.set("changelog", "- faster");
    form.set("file", Bun.file(release), "release.jar");
    const start = performance.now();
    const response = await fetch(`${base}/api/products/${productId}/versions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const ms = performance.now() - start;
    if (response.status !== 201) throw new Error(`publish: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { data: { id: number } };
    return { ms, id: body.data.id };
  }

  const latency = { A: [] as number[], B: [] as number[] };
  await publish(productB?.id); // warm-up
  for (let i = 0; i < PUBLISHES; i++) {
    latency.A.push((await publish(productA?.id)).ms);
    latency.B.push((await publish(productB?.id)).ms);
  }
  await sql`DELETE FROM pgboss.job WHERE name = 'version.published'`;

  // ---- fan-out ----
  let mails = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on("end", () => {
        mails++;
        callback();
      });
    },
  });
  const smtpPort = await freePort();
  await new Promise<void>((resolve) => smtp.listen(smtpPort, "127.0.0.1", resolve));

  const target = await publish(productA?.id);
  const workerStart = performance.now();
  const worker = track(
    Bun.spawn([BINARY, "worker"], {
      env: { ...env, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, APP_URL: base },
      stdout: "ignore",
      stderr: "inherit",
    }),
  );
  let notifiedAt = 0;
  let queuedAt = 0;
  while (performance.now() - workerStart < 300_000 && (!notifiedAt || !queuedAt)) {
    const [{ notifications } = { notifications: 0 }] = await sql<
      { notifications: number }[]
    >`SELECT count(*)::int AS notifications FROM notifications WHERE version_id = ${target.id}`;
    const [{ jobs } = { jobs: 0 }] = await sql<{ jobs: number }[]>`
      SELECT count(*)::int AS jobs FROM pgboss.job j JOIN notifications n ON n.id = j.id
      WHERE j.name = 'notification.email' AND n.version_id = ${target.id}`;
    const elapsed = performance.now() - workerStart;
    if (!notifiedAt && notifications >= HOLDERS) notifiedAt = elapsed;
    if (!queuedAt && jobs >= HOLDERS) queuedAt = elapsed;
    await Bun.sleep(100);
  }
  const mailsAfter = mails;

  server.proc.kill("SIGTERM");
  worker.kill("SIGTERM");
  smtp.close();
  await sql.end();

  const sortedA = latency.A.toSorted((a, b) => a - b);
  const sortedB = latency.B.toSorted((a, b) => a - b);
  const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`holders: ${HOLDERS}, seeded in ${seedSeconds.toFixed(1)} s`);
  console.log(
    `publish p50/p90, product with ${HOLDERS} holders: ${fmt(percentile(sortedA, 50))} / ${fmt(percentile(sortedA, 90))}`,
  );
  console.log(
    `publish p50/p90, product with no holders:   ${fmt(percentile(sortedB, 50))} / ${fmt(percentile(sortedB, 90))}`,
  );
  console.log(
    `worker start → all ${HOLDERS} notifications: ${notifiedAt ? `${(notifiedAt / 1000).toFixed(2)} s` : "not reached in 300 s"}`,
  );
  console.log(
    `worker start → all ${HOLDERS} e-mail jobs queued: ${queuedAt ? `${(queuedAt / 1000).toFixed(2)} s` : "not reached in 300 s"}`,
  );
  console.log(`e-mails received by the sink meanwhile: ${mailsAfter}`);
  return 0;
}

await runMain(main);
