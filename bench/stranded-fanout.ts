// How long a fan-out stranded by a killed worker takes to finish (bench/README.md, issue 23).
//
//   npm run build && bun bench/stranded-fanout.ts [--holders 100000] [--runs 5] [--binary PATH]
//
// Against dist/depot (or --binary) on PostgreSQL (database depot_bench_stranded, recreated each run):
// 1. Seeds a vendor and a product with N license holders (set-based SQL); `depot serve --no-workers`.
// 2. Each run publishes a version, starts a `depot worker` and, once the version's fan-out job is
//    active, kills that worker with SIGKILL (300 ms later, so mid-fan-out) and at once starts another.
// 3. It reports, from the kill: when the job was taken again (its retry active) and when it was
//    completed with all N notifications. What governs the first is in src/jobs/runner.ts (pg-boss's
//    supervise and monitor intervals) and the queue's heartbeat (src/features/versions/jobs.ts).
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import {
  builtBinary,
  createToken,
  createUser,
  depotBinary,
  depotCli,
  depotEnv,
  startDepot,
} from "./lib/depot.ts";
import { machineLine } from "./lib/machine.ts";
import { BenchDatabase } from "./lib/postgres.ts";
import { runMain, stop, tempDir, track } from "./lib/processes.ts";
import { log, median, wholeNumber } from "./lib.ts";

const { values } = parseArgs({
  options: {
    holders: { type: "string", default: "100000" },
    runs: { type: "string", default: "5" },
    binary: { type: "string" },
  },
});
const HOLDERS = wholeNumber("holders", values.holders, 1);
const RUNS = wholeNumber("runs", values.runs, 1);
const BINARY = depotBinary(values.binary);
/** How long after the job turns active the worker is killed: inside the fan-out's INSERT. */
const KILL_AFTER_MS = 300;
/** A run that has not finished by then is reported as not finished. */
const GIVE_UP_MS = 180_000;

const database = new BenchDatabase(
  "depot_bench_stranded",
  process.env.BENCH_DATABASE_URL ?? "postgres://root@127.0.0.1:5432/postgres",
);
const work = tempDir("depot-stranded-");
const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: work, LOG_LEVEL: "warn" });
const depot = depotCli(BINARY, env);

interface JobState {
  state: string;
  retry_count: number;
}

async function main(): Promise<number> {
  if (!builtBinary(BINARY, "npm run build && bun bench/stranded-fanout.ts")) return 1;
  log(machineLine());

  await database.recreate();
  database.dropAtExit();
  await depot(["migrate"]);
  const sql = database.connect(2);
  const vendorId = await createUser(depot, { name: "Vendor", email: "vendor@bench.test", role: "admin" });
  const token = await createToken(depot, vendorId);
  const [product] =
    await sql`INSERT INTO products (name, slug, user_id) VALUES ('Popular', 'popular', ${vendorId}) RETURNING id`;
  await sql`
    INSERT INTO users (name, email, role_id)
    SELECT 'Holder ' || g, 'holder' || g || '@bench.test', (SELECT id FROM roles WHERE name = 'customer')
    FROM generate_series(1, ${HOLDERS}) g`;
  await sql`
    INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
    SELECT gen_random_uuid(), 'BENCH-' || u.id, u.id, ${vendorId}, ${product?.id}, 1
    FROM users u WHERE u.email LIKE 'holder%@bench.test'`;
  await sql`ANALYZE`;

  const server = await startDepot({ binary: BINARY, env });
  const startWorker = (): Subprocess =>
    track(Bun.spawn([BINARY, "worker"], { env: { ...env, APP_URL: server.origin }, stdout: "ignore" }));

  async function publish(run: number): Promise<number> {
    const form = new FormData();
    form.set("version_name", `1.0.${run}`);
    form.set("title", "Bench");
    form.set("changelog", "- more");
    form.set("file", new File([`release ${run}`], "release.jar"));
    const response = await fetch(`${server.origin}/api/products/${product?.id}/versions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    if (response.status !== 201) throw new Error(`publish: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: { id: number } }).data.id;
  }

  const job = async (versionId: number): Promise<JobState | undefined> =>
    (
      await sql<JobState[]>`
        SELECT state, retry_count FROM pgboss.job
        WHERE name = 'version.published' AND (data->>'version_id')::int = ${versionId}`
    )[0];
  const notified = async (versionId: number) =>
    (
      await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM notifications WHERE version_id = ${versionId}`
    )[0]?.n ?? 0;

  const pickedUp: number[] = [];
  const finished: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const versionId = await publish(run);
    const victim = startWorker();
    while ((await job(versionId))?.state !== "active") await Bun.sleep(20);
    await Bun.sleep(KILL_AFTER_MS);
    victim.kill("SIGKILL");
    const killedAt = performance.now();
    await victim.exited;
    const survivor = startWorker();
    const atKill = await job(versionId);
    if (atKill?.state !== "active") {
      log(`run ${run}: the fan-out was over before the kill (${atKill?.state}); not counted`);
      await stop(survivor);
      continue;
    }
    let picked = 0;
    let done = 0;
    while (performance.now() - killedAt < GIVE_UP_MS && !done) {
      const now = await job(versionId);
      const elapsed = (performance.now() - killedAt) / 1000;
      if (!picked && now && now.retry_count > 0 && now.state !== "retry") picked = elapsed;
      if (now?.state === "completed" && (await notified(versionId)) === HOLDERS) done = elapsed;
      await Bun.sleep(100);
    }
    await stop(survivor);
    log(
      `run ${run}: taken again after ${picked ? `${picked.toFixed(1)} s` : "-"}, finished after ${done ? `${done.toFixed(1)} s` : `more than ${GIVE_UP_MS / 1000} s`}`,
    );
    if (picked) pickedUp.push(picked);
    finished.push(done || Number.POSITIVE_INFINITY);
  }
  await stop(server.proc);
  await sql.end();

  const summary = (seconds: number[]) =>
    seconds.length === 0
      ? "-"
      : `median ${median(seconds).toFixed(1)} s, min ${Math.min(...seconds).toFixed(1)} s, max ${Math.max(...seconds).toFixed(1)} s`;
  console.log(`holders: ${HOLDERS}, runs counted: ${finished.length} of ${RUNS}`);
  console.log(`kill → fan-out job taken again: ${summary(pickedUp)}`);
  console.log(`kill → fan-out finished (job completed, every notification there): ${summary(finished)}`);
  return 0;
}

await runMain(main);
