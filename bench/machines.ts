// Machines on PostgreSQL (bench/README.md, issue 26): what the machine check adds to a validation, and
// how many activations and heartbeats one instance takes.
//
//   npm run build && bun bench/machines.ts [--rounds N] [--duration S] [--warmup S] [--connections N]
//       [--pg URL] [--binary PATH] [--keep-db]
//
// 1. Database `depot_bench_machines`, made afresh each run (`depot migrate`, then set-based SQL):
//    a vendor, a customer, a product; 2,000 licenses without machines ("plain"), 2,000 with
//    maxMachines 5 and heartbeatSeconds 600, each with 3 alive machines fp-0…fp-2 ("bound"), and 2,000
//    without a machine limit for new activations ("open"); a license_ips row for 127.0.0.1 on every
//    license (every validation is for a known address, read-only); VACUUM ANALYZE.
// 2. One `depot serve --no-workers` at LOG_LEVEL=warn with MACHINE_ACTIVATIONS_PER_DAY=100000 (the
//    daily bound is not what is measured). Each round runs, in this order, autocannon (under node)
//    for `--warmup` s discarded and `--duration` s measured, a random request of the scenario's list
//    each time:
//    - validate: POST /api/v1/licenses/validate {key, productId} on a plain license;
//    - validate+fp: the same with {fingerprint: fp-1} on a bound license (3 machines; the answer is
//      VALID with machines {count: 3, max: 5});
//    - activate-again: POST /api/v1/licenses/activate {key, fingerprint: fp-0…2} on a bound license,
//      an already active machine (200): the row lock, the count and the refresh;
//    - activate-new: the same on an open license with a fingerprint from a pool of 200,000 (mostly
//      new: 201, an insert of the machine and of the activation);
//    - heartbeat: POST /api/v1/machines/{id}/heartbeat with Authorization: License <key>, one of the
//      6,000 bound machines.
//    Samples before the load check each scenario's answer (status and code).
// 3. Reported per scenario and round: requests/s, p50, p99, non-2xx, and CPU per request of the
//    server process and of its PostgreSQL backends (from /proc over the measured seconds). The machine
//    check's cost is validate+fp minus validate, in CPU per request.
import { join } from "node:path";
import { parseArgs } from "node:util";
import type postgres from "postgres";
import { generateLicenseKey } from "../src/features/licenses/keys.ts";
import { depotBinary, depotCli, depotEnv, startDepot } from "./lib/depot.ts";
import { autocannon, type LoadRequest } from "./lib/load.ts";
import { cpuSummary, memorySummary, platform } from "./lib/machine.ts";
import { BenchDatabase } from "./lib/postgres.ts";
import { runMain, stop, tempDir } from "./lib/processes.ts";
import { cpuSeconds, sumCpu } from "./lib/procfs.ts";
import { log, median, sample, wholeNumber } from "./lib.ts";

const DB_NAME = "depot_bench_machines";
const PER_KIND = 2_000;
const IP = "127.0.0.1";
const NEW_FINGERPRINTS = 200_000;

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
    "keep-db": { type: "boolean", default: false },
  },
});
const rounds = wholeNumber("rounds", opts.rounds, 1);
const duration = wholeNumber("duration", opts.duration, 1);
const warmup = wholeNumber("warmup", opts.warmup, 0);
const connections = wholeNumber("connections", opts.connections, 1);
const database = BenchDatabase.onServer(DB_NAME, opts.pg ?? "");
if (!opts["keep-db"]) database.dropAtExit();
const binary = depotBinary(opts.binary);
const workDir = tempDir("depot-bench-machines-");

interface Licenses {
  productId: number;
  plain: string[];
  bound: string[];
  open: string[];
  /** Bound machines: their id and their license's key. */
  machines: { id: string; key: string }[];
}

async function seed(sql: postgres.Sql): Promise<void> {
  const keys = new Set<string>();
  while (keys.size < 3 * PER_KIND) keys.add(generateLicenseKey());
  const [plain, bound, open] = [0, 1, 2].map((i) => [...keys].slice(i * PER_KIND, (i + 1) * PER_KIND));
  await sql.begin(async (tx) => {
    await tx`INSERT INTO users (name, email, role_id)
      VALUES ('Bench Vendor', 'bench-machines-vendor@depot.test', (SELECT id FROM roles WHERE name = 'vendor')),
             ('Bench Customer', 'bench-machines-customer@depot.test', (SELECT id FROM roles WHERE name = 'customer'))`;
    await tx`INSERT INTO products (name, slug, description, user_id)
      SELECT 'Bench Product', 'bench-machines-product', 'Seeded by bench/machines.ts', id
      FROM users WHERE email = 'bench-machines-vendor@depot.test'`;
    // max_ips tells the plain licenses (5) from the open ones (6) when they are read back.
    const insert = (
      list: string[],
      maxIps: number,
      maxMachines: number | null,
      heartbeatSeconds: number | null,
    ) => tx`
      INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips, max_machines, heartbeat_seconds)
      SELECT gen_random_uuid(), k,
             (SELECT id FROM users WHERE email = 'bench-machines-customer@depot.test'),
             (SELECT id FROM users WHERE email = 'bench-machines-vendor@depot.test'),
             (SELECT id FROM products WHERE slug = 'bench-machines-product'), ${maxIps}, ${maxMachines}, ${heartbeatSeconds}
      FROM unnest(${tx.array(list)}::text[]) AS k`;
    await insert(plain as string[], 5, null, null);
    await insert(bound as string[], 5, 5, 600);
    await insert(open as string[], 6, null, null);
    await tx`INSERT INTO machines (id, license_id, fingerprint, name, platform)
      SELECT gen_random_uuid(), l.id, 'fp-' || i, 'Bench ' || i, 'linux-x64'
      FROM licenses l CROSS JOIN generate_series(0, 2) AS i WHERE l.max_machines IS NOT NULL`;
    await tx`INSERT INTO license_ips (license_id, ip) SELECT id, ${IP} FROM licenses`;
  });
}

async function readLicenses(sql: postgres.Sql): Promise<Licenses> {
  const rows = await sql<{ key: string; max_ips: number; max_machines: number | null; product_id: number }[]>`
    SELECT key, max_ips, max_machines, product_id FROM licenses`;
  const machines = await sql<{ id: string; key: string }[]>`
    SELECT m.id, l.key FROM machines m JOIN licenses l ON l.id = m.license_id`;
  return {
    productId: rows[0]?.product_id ?? 0,
    plain: rows.filter((r) => r.max_machines === null && r.max_ips === 5).map((r) => r.key),
    bound: rows.filter((r) => r.max_machines !== null).map((r) => r.key),
    open: rows.filter((r) => r.max_ips === 6).map((r) => r.key),
    machines: machines.map((m) => ({ id: m.id, key: m.key })),
  };
}

const json = (body: unknown): Pick<LoadRequest, "headers" | "body"> => ({
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

interface Scenario {
  name: string;
  requests: LoadRequest[];
  /** What a sample request must answer. */
  expect: { status: number; code?: string };
}

function scenarios(l: Licenses): Scenario[] {
  const validate = "/api/v1/licenses/validate";
  const activate = "/api/v1/licenses/activate";
  const productId = String(l.productId);
  const fresh = Array.from({ length: NEW_FINGERPRINTS }, (_, i) => ({
    key: l.open[i % l.open.length] ?? "",
    fingerprint: `new-${i}-${crypto.randomUUID()}`,
  }));
  return [
    {
      name: "validate",
      expect: { status: 200, code: "VALID" },
      requests: l.plain.map((key) => ({ method: "POST", path: validate, ...json({ key, productId }) })),
    },
    {
      name: "validate+fp",
      expect: { status: 200, code: "VALID" },
      requests: l.bound.map((key) => ({
        method: "POST",
        path: validate,
        ...json({ key, productId, fingerprint: "fp-1" }),
      })),
    },
    {
      name: "activate-again",
      expect: { status: 200 },
      requests: l.bound.flatMap((key) =>
        [0, 1, 2].map((i) => ({
          method: "POST" as const,
          path: activate,
          ...json({ key, fingerprint: `fp-${i}` }),
        })),
      ),
    },
    {
      name: "activate-new",
      expect: { status: 201 },
      requests: fresh.map((body) => ({ method: "POST", path: activate, ...json(body) })),
    },
    {
      name: "heartbeat",
      expect: { status: 200 },
      requests: l.machines.map((m) => ({
        method: "POST",
        path: `/api/v1/machines/${m.id}/heartbeat`,
        headers: { authorization: `License ${m.key}` },
      })),
    },
  ];
}

async function backendPids(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = ${DB_NAME} AND backend_type = 'client backend' AND pid <> pg_backend_pid()
      AND application_name <> 'depot-jobs'`;
  return rows.map((r) => r.pid);
}

async function checkSamples(origin: string, scenario: Scenario) {
  for (const request of sample(scenario.requests, 5)) {
    const response = await fetch(`${origin}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    });
    const body = (await response.json()) as { code?: string };
    const ok =
      response.status === scenario.expect.status ||
      (scenario.name === "activate-new" && response.status === 200);
    if (!ok || (scenario.expect.code && body.code !== scenario.expect.code)) {
      throw new Error(`${scenario.name}: a sample answered ${response.status} ${JSON.stringify(body)}`);
    }
  }
}

interface Row {
  scenario: string;
  round: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  serverUs: number;
  pgUs: number;
}

async function main(): Promise<number> {
  const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: join(workDir, "data") });
  const depot = depotCli(binary, env, workDir);
  log(`creating ${DB_NAME}`);
  await database.recreate();
  await depot(["migrate"]);
  const sql = database.connect(2);
  try {
    await seed(sql);
    await sql.unsafe("VACUUM (ANALYZE)");
    const licenses = await readLicenses(sql);
    log(
      `seeded: ${licenses.plain.length} plain, ${licenses.bound.length} bound (${licenses.machines.length} machines), ` +
        `${licenses.open.length} open`,
    );
    const server = await startDepot({
      binary,
      cwd: workDir,
      env: { ...env, LOG_LEVEL: "warn", MACHINE_ACTIVATIONS_PER_DAY: "100000" },
      stderr: join(workDir, "depot.err"),
    });
    const list = scenarios(licenses);
    for (const scenario of list) await checkSamples(server.origin, scenario);
    const rows: Row[] = [];
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of list) {
        const pids = await backendPids(sql);
        let cpu0 = { server: 0, pg: 0 };
        let cpu1 = { server: 0, pg: 0 };
        const read = () => ({ server: cpuSeconds(server.proc.pid) ?? 0, pg: sumCpu(pids) });
        const result = await autocannon({
          url: server.origin,
          connections,
          warmup,
          duration,
          requests: scenario.requests,
          dir: workDir,
          onMeasuring: () => {
            cpu0 = read();
          },
          onDone: () => {
            cpu1 = read();
          },
        });
        const perRequest = (seconds: number) => (seconds / Math.max(1, result.total)) * 1e6;
        const row = {
          scenario: scenario.name,
          round,
          rps: result.rps,
          p50: result.p50,
          p99: result.p99,
          non2xx: result.non2xx,
          serverUs: perRequest(cpu1.server - cpu0.server),
          pgUs: perRequest(cpu1.pg - cpu0.pg),
        };
        rows.push(row);
        log(
          `${row.scenario} round ${round}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ` +
            `non-2xx ${row.non2xx}, CPU/req server ${row.serverUs.toFixed(0)} µs, PostgreSQL ${row.pgUs.toFixed(0)} µs`,
        );
      }
    }
    await stop(server.proc);
    report(rows);
    return rows.some((row) => row.non2xx > 0) ? 1 : 0;
  } finally {
    await sql.end();
  }
}

function report(rows: Row[]) {
  console.log(`machine: ${cpuSummary()}, ${memorySummary()}, ${platform()}; Bun ${Bun.version}`);
  console.log(
    `${connections} connections, ${warmup} s warm-up + ${duration} s measured per run, ${rounds} rounds\n`,
  );
  console.log("| scenario | round | req/s | p50 | p99 | non-2xx | CPU/req: server | PostgreSQL |");
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.scenario} | ${r.round} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.non2xx} | ${r.serverUs.toFixed(0)} µs | ${r.pgUs.toFixed(0)} µs |`,
    );
  }
  const med = (name: string, pick: (r: Row) => number) =>
    median(rows.filter((r) => r.scenario === name).map(pick));
  const plainCpu = med("validate", (r) => r.serverUs + r.pgUs);
  const boundCpu = med("validate+fp", (r) => r.serverUs + r.pgUs);
  console.log(
    `\nmedian CPU/req (server + PostgreSQL): validate ${plainCpu.toFixed(0)} µs, validate+fp ${boundCpu.toFixed(0)} µs: ` +
      `the machine check costs ${(boundCpu - plainCpu).toFixed(0)} µs (${((boundCpu / plainCpu - 1) * 100).toFixed(0)} %); ` +
      `req/s ${med("validate", (r) => r.rps).toFixed(0)} vs ${med("validate+fp", (r) => r.rps).toFixed(0)}`,
  );
}

await runMain(main);
