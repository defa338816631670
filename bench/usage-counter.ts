// What counting a validation costs, part by part (bench/README.md, "Usage rollups"): the in-memory
// count each validation makes (UsageCounter.add, as countValidation calls it), and the upsert that
// writes an interval's counts, by the server's CPU and by PostgreSQL's backend CPU (from /proc).
// The count is measured twice: in a tight loop, where everything it touches stays in the CPU's
// caches, and with --thrash MiB of other memory read between two counts, as a request's own work
// (signing, JSON, HTTP) does in a server: what the count costs there.
//
//   bun bench/usage-counter.ts [--licenses 2000] [--adds 2000000] [--cold-adds 40000] [--thrash 4]
//                              [--flushes 10]
//
// Needs the validate benchmark's database (bench/validate.ts seeds it; DATABASE_URL overrides it).
import { parseArgs } from "node:util";
import postgres from "postgres";
import { openPostgres } from "../src/db/client.ts";
import { UsageCounter } from "../src/features/stats/usage-counter.ts";
import { createLogger } from "../src/log.ts";
import { cpuSeconds } from "./lib/procfs.ts";
import { log, median } from "./lib.ts";

const { values } = parseArgs({
  options: {
    licenses: { type: "string", default: "2000" },
    adds: { type: "string", default: "2000000" },
    "cold-adds": { type: "string", default: "40000" },
    thrash: { type: "string", default: "4" },
    flushes: { type: "string", default: "10" },
  },
});
const url = process.env.DATABASE_URL ?? "postgres://root@127.0.0.1:5432/depot_bench_validate";
const licenseCount = Number(values.licenses);
const adds = Number(values.adds);
const coldAdds = Number(values["cold-adds"]);
const flushes = Number(values.flushes);

const sql = postgres(url, { max: 1, onnotice: () => {} });
const licenses = await sql<{ id: string; product_id: string }[]>`
  SELECT id, product_id FROM licenses ORDER BY id LIMIT ${licenseCount}`;
if (licenses.length < licenseCount)
  throw new Error(`${url} has ${licenses.length} licenses: run bench/validate.ts`);
const database = openPostgres(url, { max: 1 });
const quiet = createLogger("error", () => {});

/** CPU microseconds of this process per call of `fn` over `n` calls. */
function cpuPerCall(n: number, fn: (i: number) => void): number {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) fn(i);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

// 1. The count itself. Each validation hands over a license id string the driver has just made, so
// the loop makes a fresh one per call; its cost alone is measured and taken off.
const ids = licenses.map((license) => license.id);
const productId = Number(licenses[0]?.product_id);
const fresh = (i: number) => `${ids[i % licenseCount]}`.concat("");
const counter = new UsageCounter(database.db, quiet, true, 3_600_000);
const addRounds: number[] = [];
for (let round = 0; round < 5; round++) {
  const baseline = cpuPerCall(adds, (i) => void fresh(i).length);
  const counted = cpuPerCall(adds, (i) =>
    counter.add({ productId, series: "validations", licenseId: fresh(i), detail: "VALID" }),
  );
  addRounds.push(counted - baseline);
}
await counter.flush();

// 1b. The same count with other memory read in between. The read costs far more than the count, so
// the count is timed alone (Bun.nanoseconds around it; the timer's own cost, measured the same way
// around nothing, taken off): for a synchronous sub-microsecond call, its time is its CPU.
const other = new Float64Array((Number(values.thrash) * 1024 * 1024) / 8);
let sink = 0;
/** Reads a word of every 64-byte line of `other`: what a request's work does to the caches. */
const thrash = () => {
  for (let i = 0; i < other.length; i += 8) sink += other[i] as number;
};
/** Nanoseconds per call of `fn` alone, over `n` calls with `other` read before each. */
function coldNsPerCall(n: number, fn: (id: string) => void): number {
  let ns = 0;
  for (let i = 0; i < n; i++) {
    thrash();
    const id = fresh(i);
    const started = Bun.nanoseconds();
    fn(id);
    ns += Bun.nanoseconds() - started;
  }
  return ns / n;
}
const coldRounds: number[] = [];
for (let round = 0; round < 5; round++) {
  const timer = coldNsPerCall(coldAdds, () => {});
  const counted = coldNsPerCall(coldAdds, (licenseId) =>
    counter.add({ productId, series: "validations", licenseId, detail: "VALID" }),
  );
  coldRounds.push((counted - timer) / 1000);
}
await counter.flush();
if (sink !== 0) log("(the thrashed memory was not zero)");

// 2. The write: an interval in which every license validated, as under the validate benchmark.
const backendPid = Number((await database.rows("SELECT pg_backend_pid()", []))[0]?.[0]);
const flushServer: number[] = [];
const flushBackend: number[] = [];
const flushWall: number[] = [];
for (let round = 0; round < flushes; round++) {
  for (const id of ids) counter.add({ productId, series: "validations", licenseId: id, detail: "VALID" });
  const cpu = process.cpuUsage();
  const backend = cpuSeconds(backendPid) ?? Number.NaN;
  const started = performance.now();
  await counter.flush();
  flushWall.push(performance.now() - started);
  const used = process.cpuUsage(cpu);
  flushServer.push((used.user + used.system) / 1000);
  flushBackend.push(((cpuSeconds(backendPid) ?? Number.NaN) - backend) * 1000);
}
// Leave the benchmark's database as the validate benchmark expects it: its usage is not ours.
await sql`DELETE FROM usage_days WHERE product_id = ${productId} AND series = 'validations' AND day = current_date`;

const add = median(addRounds);
const coldAdd = median(coldRounds);
log(`add rounds (µs): ${addRounds.map((v) => v.toFixed(3)).join(" ")}`);
log(
  `add rounds with ${values.thrash} MiB read between (µs): ${coldRounds.map((v) => v.toFixed(3)).join(" ")}`,
);
console.log(`licenses=${licenseCount} adds=${adds} cold-adds=${coldAdds} flushes=${flushes}`);
console.log(`add: ${add.toFixed(3)} µs of CPU a validation in a tight loop (median of 5 rounds)`);
console.log(
  `add: ${coldAdd.toFixed(3)} µs of CPU a validation with ${values.thrash} MiB read between two (median of 5 rounds)`,
);
console.log(
  `flush of ${licenseCount} rows: server ${median(flushServer).toFixed(1)} ms CPU, ` +
    `PostgreSQL backend ${median(flushBackend).toFixed(1)} ms CPU, ${median(flushWall).toFixed(1)} ms wall (medians)`,
);
const perInterval = median(flushServer) + median(flushBackend);
for (const rps of [6_000, 12_000]) {
  const perRequest = (perInterval * 1000) / (rps * 5);
  console.log(
    `at ${rps} validations/s (5 s intervals): flush ${perRequest.toFixed(2)} µs + add ${coldAdd.toFixed(2)} µs ` +
      `(the count with memory read between) = ${(perRequest + coldAdd).toFixed(2)} µs of CPU a validation`,
  );
}
await database.close();
await sql.end();
