// License validation on PostgreSQL against a bare Bun.serve + postgres.js reference (bench/README.md, issue 4).
//
//   npm run build && bun bench/validate.ts [options]
//
//   --rounds N        how many times the server list runs, in order (default 2: ref, depot, ref, depot…)
//   --servers LIST    comma-separated, run in this order each round: ref, info, warn, or depot:LEVEL
//                     for any LOG_LEVEL (default ref,info,warn: the reference, depot at its default
//                     level, depot at warn). LEVEL@PATH runs another depot binary, e.g. a build with a
//                     candidate change, interleaved with the others: warn,warn@/tmp/depot-candidate.
//                     LEVEL+metrics (also with @PATH) sets METRICS_TOKEN and scrapes /metrics once a
//                     second during the measured load: warn,warn+metrics (bench/README.md, issue 13)
//   --duration S      seconds measured per run (default 20)
//   --warmup S        seconds of the same load before each measurement, discarded (default 3)
//   --connections N   concurrent autocannon connections, and callers in the SQL-alone part (default 64)
//   --sql-seconds S   seconds per statement in the SQL-alone part (default 5; 0 skips it)
//   --soak S          after the rounds, each server of --servers alone under the same load for S seconds
//                     (default 0: none; 300 for the five-minute soak), measured minute by minute: the
//                     last minute must keep within 5 % of the first (no decay under sustained load)
//   --stdout pipe|file  where depot's stdout (one JSON line per request at info) goes: a pipe this
//                     script reads and discards, as a log collector would (default), or a file in the
//                     temporary directory (on this machine's ext4 disk that costs more; bench/README.md)
//   --reseed          drop and re-create the bench database even if it already holds the dataset
//   --drop-db         drop the bench database when done (it is kept otherwise, for the next run)
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing); it also
//                     runs `depot migrate`
//
// What it does:
// 1. Database `depot_bench_validate`: reused when it already holds the dataset; otherwise (or with
//    --reseed) dropped, created, migrated with `depot migrate` and seeded with set-based SQL: a vendor
//    (creator of every license, owner of the product), 1,000 customers (owners, round robin), one
//    product, 10,000 licenses (keys made by the service's own generateLicenseKey, no expiry, max_ips
//    5) and one `license_ips` row for 127.0.0.1 per license; then VACUUM ANALYZE.
// 2. Each run starts one server alone on a free port (nothing else of ours runs meanwhile):
//    - `ref`: bench/validate-reference.ts under bun (a pool of 10, as depot's);
//    - `depot:LEVEL`: `dist/depot serve --no-workers` with LOG_LEVEL=LEVEL (see --stdout).
//    Then: 20 random keys must answer 200 `"code":"VALID"`; `last_seen_at` of every license_ips row
//    is set to now() (as if each key had just been validated from 127.0.0.1) and the table is
//    rewritten (VACUUM FULL) so that repeated runs do not bloat it; every one of the
//    10,000 keys is validated once over HTTP (16 at a time; all must be VALID); then autocannon (run
//    by node, so its CPU is not this process's) drives POST /api/v1/licenses/validate, a random key
//    per request, for the warm-up and then the measured seconds; the 20 samples are checked again.
//    depot refreshes `last_seen_at` at most once a minute per license and address, so after the
//    reset no measured request writes; the rows touched during the load are counted to show it.
// 3. CPU time of the server process, of its PostgreSQL backends and of autocannon over the measured
//    load, from /proc, is reported per request.
// 4. Before the servers, the SQL alone: the statement the service runs for a known address (captured
//    from validateLicenseKey through a logging Drizzle instance, not retyped), EXPLAIN ANALYZE of it,
//    and queries/s and CPU per query from 64 callers on a postgres.js pool of 10, sent as Drizzle sends
//    it (unnamed statement) and as a named prepared statement, against the reference's SELECT.
import { statSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type postgres from "postgres";
import { generateLicenseKey } from "../src/features/licenses/keys.ts";
import { validateLicenseKey } from "../src/features/licenses/validate.ts";
import { builtBinary, depotBinary, depotCli, depotEnv, startDepot } from "./lib/depot.ts";
import { autocannon, type LoadRequest, type LoadResult } from "./lib/load.ts";
import { cpuSummary, memorySummary, platform } from "./lib/machine.ts";
import { BenchDatabase, type Captured, capturingDb, explainAnalyze } from "./lib/postgres.ts";
import { runMain, type Server, startServer, stop, tempDir } from "./lib/processes.ts";
import { cpuSeconds, sumCpu } from "./lib/procfs.ts";
import { log, median, sample, secondsSince, wholeNumber } from "./lib.ts";

const DB_NAME = "depot_bench_validate";
const LICENSES = 10_000;
const CUSTOMERS = 1_000;
const MAX_IPS = 5;
const IP = "127.0.0.1";
const VENDOR_EMAIL = "bench-validate-vendor@depot.test";
const PRODUCT_SLUG = "bench-validate-product";
const POOL_MAX = 10; // depot's: src/db/client.ts openPostgres
const SAMPLES = 20;
const PASS_CONCURRENCY = 16;
const TARGET_RATIO = 0.8;
const TARGET_P99_MS = 10;
/** A soak passes when its last minute keeps this share of its first minute's throughput. */
const SOAK_TOLERANCE = 0.05;

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    servers: { type: "string", default: "ref,info,warn" },
    duration: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    soak: { type: "string", default: "0" },
    connections: { type: "string", default: "64" },
    "sql-seconds": { type: "string", default: "5" },
    stdout: { type: "string", default: "pipe" },
    reseed: { type: "boolean", default: false },
    "drop-db": { type: "boolean", default: false },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});

const rounds = wholeNumber("rounds", opts.rounds, 1);
const duration = wholeNumber("duration", opts.duration, 1);
const warmup = wholeNumber("warmup", opts.warmup, 0);
const connections = wholeNumber("connections", opts.connections, 1);
const sqlSeconds = wholeNumber("sql-seconds", opts["sql-seconds"], 0);
const soakSeconds = wholeNumber("soak", opts.soak, 0);
const stdoutTo = opts.stdout;
if (stdoutTo !== "pipe" && stdoutTo !== "file")
  throw new Error(`--stdout must be pipe or file, got ${stdoutTo}`);
const database = BenchDatabase.onServer(DB_NAME, opts.pg ?? "");
if (opts["drop-db"]) database.dropAtExit();
const binary = depotBinary(opts.binary);
const referenceScript = fileURLToPath(new URL("./validate-reference.ts", import.meta.url));

interface ServerSpec {
  /** Tells the runs of one server apart: "ref", or LEVEL@binary. */
  id: string;
  kind: "ref" | "depot";
  /** depot's LOG_LEVEL; "—" for the reference */
  level: string;
  /** The depot binary; "" for the reference. */
  binary: string;
  /** METRICS_TOKEN set, and /metrics scraped during the load. */
  metrics: boolean;
}
/** What a `+metrics` server is started with and scraped by. */
const METRICS_TOKEN = "bench-metrics-token";
const SCRAPE_EVERY_MS = 1000;
const LEVELS = ["debug", "info", "warn", "error", "silent"]; // src/config.ts LOG_LEVELS
const servers: ServerSpec[] = (opts.servers ?? "").split(",").map((raw) => {
  const name = raw.trim();
  if (name === "ref") return { id: "ref", kind: "ref", level: "—", binary: "", metrics: false };
  const [spec = "", path] = name.split("@");
  const metrics = spec.endsWith("+metrics");
  const bare = metrics ? spec.slice(0, -"+metrics".length) : spec;
  const level = bare.startsWith("depot:") ? bare.slice("depot:".length) : bare;
  if (!LEVELS.includes(level))
    throw new Error(
      `--servers: unknown entry "${name}" (ref, info, warn, depot:LEVEL, LEVEL@PATH, LEVEL+metrics)`,
    );
  const bin = path ? depotBinary(path) : binary;
  return { id: `${level}${metrics ? "+metrics" : ""}@${bin}`, kind: "depot", level, binary: bin, metrics };
});
const binaries = [...new Set(servers.filter((s) => s.kind === "depot").map((s) => s.binary))];
/** "depot", or "depot (<file name>)" for a binary other than --binary. */
const serverName = (spec: ServerSpec) =>
  (spec.kind === "ref"
    ? "reference"
    : spec.binary === binary
      ? "depot"
      : `depot (${basename(spec.binary)})`) + (spec.metrics ? " + metrics" : "");

// Temporary files, like every process started, are gone when this exits.
const workDir = tempDir("depot-bench-validate-");
const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: workDir });
const depot = depotCli(binary, env, workDir);

// ---------------------------------------------------------------------------------------------
// The dataset.

/** True when the database holds exactly the seeded dataset (a partial seed does not count). */
async function isSeeded(sql: postgres.Sql): Promise<boolean> {
  try {
    const [row] = await sql`
      SELECT (SELECT count(*) FROM licenses l JOIN products p ON p.id = l.product_id
               WHERE p.slug = ${PRODUCT_SLUG})::int AS licenses,
             (SELECT count(*) FROM license_ips i JOIN licenses l ON l.id = i.license_id
               JOIN products p ON p.id = l.product_id
               WHERE p.slug = ${PRODUCT_SLUG} AND i.ip = ${IP})::int AS ips`;
    return row?.licenses === LICENSES && row?.ips === LICENSES;
  } catch {
    return false; // no schema yet
  }
}

/** One transaction of set-based inserts; the keys come from the service's own generator. */
async function seed(sql: postgres.Sql) {
  const keys = new Set<string>();
  while (keys.size < LICENSES) keys.add(generateLicenseKey());
  await sql.begin(async (tx) => {
    await tx`
      INSERT INTO users (name, email, role_id)
      VALUES ('Bench Vendor', ${VENDOR_EMAIL}, (SELECT id FROM roles WHERE name = 'vendor'))`;
    await tx`
      INSERT INTO users (name, email, role_id)
      SELECT 'Bench Customer ' || g, 'bench-validate-user-' || g || '@depot.test',
             (SELECT id FROM roles WHERE name = 'customer')
      FROM generate_series(1, ${CUSTOMERS}::int) g`;
    await tx`
      INSERT INTO products (name, slug, description, user_id)
      SELECT 'Bench Product', ${PRODUCT_SLUG}, 'Seeded by bench/validate.ts', id
      FROM users WHERE email = ${VENDOR_EMAIL}`;
    // Owners round robin over the customers; created_at spread over the last year.
    await tx`
      WITH vendor AS (SELECT id FROM users WHERE email = ${VENDOR_EMAIL}),
           product AS (SELECT id FROM products WHERE slug = ${PRODUCT_SLUG}),
           customers AS (
             SELECT id, row_number() OVER (ORDER BY id) - 1 AS i FROM users
             WHERE email LIKE 'bench-validate-user-%')
      INSERT INTO licenses (id, key, user_id, creator_id, product_id, expires, max_ips, created_at, updated_at)
      SELECT gen_random_uuid(), k.key, c.id, (SELECT id FROM vendor), (SELECT id FROM product),
             NULL, ${MAX_IPS}::int,
             now() - (k.n * interval '365 days') / ${LICENSES}::int,
             now() - (k.n * interval '365 days') / ${LICENSES}::int
      FROM unnest(${sql.array([...keys])}::text[]) WITH ORDINALITY AS k(key, n)
      JOIN customers c ON c.i = (k.n - 1) % ${CUSTOMERS}::int`;
    await tx`
      INSERT INTO license_ips (license_id, ip, first_seen_at, last_seen_at)
      SELECT l.id, ${IP}, l.created_at, now()
      FROM licenses l JOIN products p ON p.id = l.product_id WHERE p.slug = ${PRODUCT_SLUG}`;
  });
}

// ---------------------------------------------------------------------------------------------
// Servers.

/**
 * One server alone on a free port: the reference under bun (a pool of POOL_MAX, as depot's), or
 * `depot serve --no-workers` at the spec's LOG_LEVEL, whose stdout goes to a pipe this script reads
 * and throws away, as a log collector would, or with --stdout file to a file.
 */
function startBenchServer(spec: ServerSpec, run: number): Promise<Server> {
  const name =
    spec.kind === "ref"
      ? "ref"
      : `depot-${spec.level}${spec.metrics ? "-metrics" : ""}-${basename(spec.binary)}`;
  const outPath = join(workDir, `${name}-${run}.out`);
  const errPath = join(workDir, `${name}-${run}.err`);
  if (spec.kind === "ref") {
    return startServer({
      what: name,
      cmd: [process.execPath, referenceScript],
      cwd: workDir,
      env: (port) => ({
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        POOL_MAX: String(POOL_MAX),
      }),
      health: "/health",
      stdout: outPath,
      stderr: errPath,
    });
  }
  return startDepot({
    what: name,
    binary: spec.binary,
    cwd: workDir,
    env: { ...env, LOG_LEVEL: spec.level, ...(spec.metrics ? { METRICS_TOKEN } : {}) },
    stdout: stdoutTo === "pipe" ? undefined : outPath,
    stderr: errPath,
  });
}

interface Validation {
  status: number;
  code: string | undefined;
  text: string;
}

async function validate(origin: string, key: string, productId: string): Promise<Validation> {
  const res = await fetch(`${origin}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, productId }),
  });
  const text = await res.text();
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { code?: string }).code;
  } catch {}
  return { status: res.status, code, text };
}

/** Every key given answers 200 VALID, `concurrency` requests at a time; throws on the first that does not. */
async function expectValid(origin: string, keys: string[], productId: string, concurrency: number) {
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const key = keys[next++] as string;
      const answer = await validate(origin, key, productId);
      if (answer.status !== 200 || answer.code !== "VALID") {
        throw new Error(`validating ${key} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

// ---------------------------------------------------------------------------------------------
// CPU accounting.

/** Backends connected to the bench database but for this script's own and pg-boss's: the server's request pool. */
async function backendPids(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity
    WHERE datname = ${DB_NAME} AND backend_type = 'client backend' AND pid <> pg_backend_pid()
      AND application_name <> 'depot-jobs'`;
  return rows.map((r) => r.pid);
}

// ---------------------------------------------------------------------------------------------
// The SQL alone: what the database side costs, without HTTP.

/**
 * The statements the service runs to validate `key` from 127.0.0.1, captured from its own
 * validateLicenseKey through a logging Drizzle instance (so the SQL is not retyped and follows the
 * service). A known address whose last_seen_at is fresh must take exactly one statement.
 */
async function serviceStatement(sql: postgres.Sql, key: string, productId: string): Promise<Captured> {
  const { db, database, captured } = capturingDb(sql);
  const answer = await validateLicenseKey({ db, database }, { key, productId, ip: IP, vouchingKey: null });
  if (answer.code !== "VALID") throw new Error(`validateLicenseKey answered ${answer.code} for ${key}`);
  const [statement] = captured;
  if (!statement || captured.length !== 1) {
    throw new Error(`a validation from a known address ran ${captured.length} statements, expected 1`);
  }
  return statement;
}

interface SqlResult {
  label: string;
  qps: number;
  pgCpuUs: number;
  clientCpuUs: number;
}

/** `callers` loops issue `query` with random keys on a pool of POOL_MAX for `sqlSeconds` (after 1 s). */
async function sqlAlone(
  admin: postgres.Sql,
  label: string,
  keys: string[],
  query: (pool: postgres.Sql, key: string) => Promise<unknown>,
): Promise<SqlResult> {
  const pool = database.connect(POOL_MAX);
  try {
    let done = 0;
    let stop = false;
    const caller = async () => {
      while (!stop) {
        await query(pool, keys[Math.floor(Math.random() * keys.length)] as string);
        done++;
      }
    };
    const callers = Array.from({ length: connections }, caller);
    await Bun.sleep(1000);
    const pids = await backendPids(admin);
    const pg0 = sumCpu(pids);
    const me0 = cpuSeconds(process.pid) ?? 0;
    const t0 = performance.now();
    done = 0;
    await Bun.sleep(sqlSeconds * 1000);
    const n = done;
    const elapsed = secondsSince(t0);
    const pg1 = sumCpu(pids);
    const me1 = cpuSeconds(process.pid) ?? 0;
    stop = true;
    await Promise.all(callers);
    return {
      label,
      qps: n / elapsed,
      pgCpuUs: ((pg1 - pg0) * 1e6) / n,
      clientCpuUs: ((me1 - me0) * 1e6) / n,
    };
  } finally {
    await pool.end();
  }
}

async function sqlSection(sql: postgres.Sql, keys: string[], productId: string): Promise<string[]> {
  await sql`UPDATE license_ips SET last_seen_at = now() WHERE ip = ${IP}`;
  const sampleKey = keys[0] as string;
  const statement = await serviceStatement(sql, sampleKey, productId);
  const keyAt = statement.params.indexOf(sampleKey);
  if (keyAt < 0) throw new Error(`the key is not a parameter of the service's statement: ${statement.query}`);
  const params = (key: string) => statement.params.map((p, i) => (i === keyAt ? key : p)) as string[];
  const plan = await explainAnalyze(sql, statement);

  const results: SqlResult[] = [];
  const variants: [string, (pool: postgres.Sql, key: string) => Promise<unknown>][] = [
    // What Drizzle does for an ordinary query: postgres.js unsafe() without options is prepare: false.
    [
      "service SQL, unnamed statement (as depot sends it)",
      (pool, key) => pool.unsafe(statement.query, params(key)),
    ],
    [
      "service SQL, named prepared statement",
      (pool, key) => pool.unsafe(statement.query, params(key), { prepare: true }),
    ],
    [
      "reference SQL, named prepared statement (tagged template)",
      (pool, key) =>
        pool`SELECT id, product_id, expires, max_ips, revoked_at FROM licenses WHERE key = ${key}`,
    ],
  ];
  for (const [label, query] of variants) {
    const result = await sqlAlone(sql, label, keys, query);
    results.push(result);
    log(
      `SQL alone, ${label}: ${result.qps.toFixed(0)} queries/s, PostgreSQL CPU ${result.pgCpuUs.toFixed(0)} µs/query, ` +
        `client CPU ${result.clientCpuUs.toFixed(0)} µs/query`,
    );
  }
  return [
    "",
    `SQL alone (no HTTP; ${connections} callers on one postgres.js pool of ${POOL_MAX}, 1 s warm-up + ` +
      `${sqlSeconds} s each, random keys). The service's statement, captured from validateLicenseKey:`,
    "",
    `    ${statement.query}`,
    "",
    "| statement | queries/s | PostgreSQL CPU/query | client CPU/query |",
    "|---|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.label} | ${r.qps.toFixed(0)} | ${r.pgCpuUs.toFixed(0)} µs | ${r.clientCpuUs.toFixed(0)} µs |`,
    ),
    "",
    "EXPLAIN (ANALYZE, BUFFERS) of the service's statement (second run):",
    "",
    ...plan.map((line) => `    ${line}`),
  ];
}

// ---------------------------------------------------------------------------------------------
// Load.

interface Measured extends LoadResult {
  serverCpuUs: number;
  pgCpuUs: number;
  /** autocannon's own CPU, to show how much of the two cores the load generator takes. */
  loadCpuUs: number;
  writes: number;
}

interface CpuCounters {
  server: number;
  pg: number;
  load: number;
}

/**
 * autocannon posting `{"key":…,"productId":…}` with a random key for each request, the warm-up and
 * then the measured seconds; the CPU of the server, of its PostgreSQL backends and of autocannon is
 * read around exactly the measured part.
 */
async function load(
  sql: postgres.Sql,
  server: Server,
  keys: string[],
  productId: string,
  seconds = { warmup, duration },
): Promise<Measured> {
  const [start] = await sql<{ now: Date }[]>`SELECT now()`;
  const since = start?.now ?? new Date(0);
  const cpu: { pids: number[]; before?: CpuCounters; after?: CpuCounters } = { pids: [] };
  const counters = (autocannonPid: number): CpuCounters => ({
    server: cpuSeconds(server.proc.pid) ?? 0,
    pg: sumCpu(cpu.pids),
    load: cpuSeconds(autocannonPid) ?? 0,
  });
  const requests: LoadRequest[] = keys.map((key) => ({
    method: "POST",
    path: "/api/v1/licenses/validate",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, productId }),
  }));
  const result = await autocannon({
    url: server.origin,
    connections,
    warmup: seconds.warmup,
    duration: seconds.duration,
    requests,
    dir: workDir,
    onMeasuring: async (pid) => {
      cpu.pids = await backendPids(sql);
      cpu.before = counters(pid);
    },
    onDone: (pid) => {
      cpu.after = counters(pid);
    },
  });
  const { before: b, after: a } = cpu;
  if (!b || !a) throw new Error("autocannon did not report its phases");
  const [touched] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM license_ips WHERE last_seen_at >= ${since}`;
  const perRequest = (s: number) => (result.total > 0 ? (s * 1e6) / result.total : 0);
  return {
    ...result,
    serverCpuUs: perRequest(a.server - b.server),
    pgCpuUs: perRequest(a.pg - b.pg),
    loadCpuUs: perRequest(a.load - b.load),
    writes: touched?.n ?? 0,
  };
}

/** Starts `spec`, resets the addresses' last_seen_at as the rounds do, and checks every key once. */
async function readyServer(
  sql: postgres.Sql,
  spec: ServerSpec,
  run: number,
  keys: string[],
  productId: string,
) {
  const server = await startBenchServer(spec, run);
  await sql`UPDATE license_ips SET last_seen_at = now() WHERE ip = ${IP}`;
  await sql.unsafe("VACUUM (FULL, ANALYZE) license_ips");
  await expectValid(server.origin, keys, productId, PASS_CONCURRENCY);
  return server;
}

/**
 * Each server alone under the rounds' load for --soak seconds, in back-to-back one-minute
 * measurements (the first after the warm-up): does throughput hold, minute after minute?
 */
async function soak(sql: postgres.Sql, keys: string[], productId: string): Promise<string[]> {
  const minutes = Math.ceil(soakSeconds / 60);
  const lines = [
    "",
    `Soak: each server alone, ${connections} connections, ${warmup} s warm-up, then ${minutes} back-to-back ` +
      `measurements of ${Math.min(60, soakSeconds)} s; target: the last within ${SOAK_TOLERANCE * 100} % of the first.`,
    "",
    "| server | per minute: req/s (p99) | last / first | target |",
    "|---|---|---:|---|",
  ];
  const unique = servers.filter((spec, i) => servers.findIndex((s) => s.id === spec.id) === i);
  for (const [i, spec] of unique.entries()) {
    const server = await readyServer(sql, spec, 1000 + i, keys, productId);
    const results: Measured[] = [];
    try {
      for (let minute = 0; minute < minutes; minute++) {
        const seconds = {
          warmup: minute === 0 ? warmup : 0,
          duration: Math.min(60, soakSeconds - minute * 60),
        };
        const result = await load(sql, server, keys, productId, seconds);
        results.push(result);
        log(
          `soak ${label(spec)} minute ${minute + 1}/${minutes}: ${result.rps.toFixed(0)} req/s, p99 ${result.p99} ms`,
        );
      }
    } finally {
      await stop(server.proc);
    }
    const first = results[0]?.rps ?? 0;
    const last = results.at(-1)?.rps ?? 0;
    const ratio = first > 0 ? last / first : 0;
    lines.push(
      `| ${label(spec)} | ${results.map((r) => `${r.rps.toFixed(0)} (${r.p99} ms)`).join(", ")} | ` +
        `${ratio.toFixed(3)} | ${ratio >= 1 - SOAK_TOLERANCE ? "met" : "NOT met"} |`,
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------

const label = (spec: ServerSpec) =>
  spec.kind === "ref"
    ? "reference"
    : `${serverName(spec)}, LOG_LEVEL=${spec.level}${spec.metrics ? " (scraped every 1 s)" : ""}`;

/**
 * Scrapes `/metrics` every SCRAPE_EVERY_MS while the load runs, as Prometheus would (15 s is usual:
 * this is an upper bound on its cost). `stop` says how many scrapes there were; any that did not
 * answer 200 with the validations counted fails the run.
 */
function scrapeMetrics(origin: string) {
  let scrapes = 0;
  let failure: string | null = null;
  const timer = setInterval(async () => {
    const response = await fetch(`${origin}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const text = await response.text();
    if (
      response.status !== 200 ||
      !text.includes('depot_license_validations_total{endpoint="validate",code="VALID"}')
    )
      failure ??= `/metrics answered ${response.status}`;
    scrapes++;
  }, SCRAPE_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      if (failure) throw new Error(failure);
      return scrapes;
    },
  };
}

async function main(): Promise<number> {
  // --binary also runs `depot migrate`, so it must exist even when only the reference is measured.
  for (const path of new Set([binary, ...binaries])) {
    if (!builtBinary(path, "npm run build && bun bench/validate.ts")) return 1;
  }

  // 1. Dataset.
  const seedSeconds = await database.prepare({
    reseed: opts.reseed ?? false,
    migrate: () => depot(["migrate"]),
    isSeeded,
    seed,
  });

  const sql = database.connect(1);
  try {
    const [product] = await sql<{ id: string }[]>`SELECT id::text FROM products WHERE slug = ${PRODUCT_SLUG}`;
    if (!product) throw new Error(`product ${PRODUCT_SLUG} is missing`);
    const keys = (
      await sql<{ key: string }[]>`SELECT key FROM licenses WHERE product_id = ${product.id} ORDER BY key`
    ).map((r) => r.key);
    const [sizes] = await sql<{ licenses: string; ips: string; database: string }[]>`
      SELECT pg_size_pretty(pg_total_relation_size('licenses')) AS licenses,
             pg_size_pretty(pg_total_relation_size('license_ips')) AS ips,
             pg_size_pretty(pg_database_size(current_database())) AS database`;
    log(`${keys.length} keys of product ${product.id}`);
    const sqlLines = sqlSeconds > 0 ? await sqlSection(sql, keys, product.id) : [];

    // 2. The runs, each server alone.
    const runs: { spec: ServerSpec; round: number; result: Measured; logLines: number }[] = [];
    let n = 0;
    for (let round = 1; round <= rounds; round++) {
      for (const spec of servers) {
        n++;
        const server = await startBenchServer(spec, n);
        try {
          const probes = sample(keys, SAMPLES);
          await expectValid(server.origin, probes, product.id, 1);
          if (spec.kind === "depot" && runs.every((r) => r.spec.kind !== "depot")) {
            log(`  depot answers: ${(await validate(server.origin, probes[0] as string, product.id)).text}`);
          }
          // As if every key had just been validated from 127.0.0.1: no measured request is over a
          // minute past its license's last_seen_at, so none writes (counted below to show it).
          await sql`UPDATE license_ips SET last_seen_at = now() WHERE ip = ${IP}`;
          // Rewritten without the old row versions, so that repeated runs do not grow the table.
          await sql.unsafe("VACUUM (FULL, ANALYZE) license_ips");
          const t0 = performance.now();
          await expectValid(server.origin, keys, product.id, PASS_CONCURRENCY);
          log(`  ${label(spec)}: all ${keys.length} keys VALID in ${secondsSince(t0).toFixed(1)} s`);
          const scraper = spec.metrics ? scrapeMetrics(server.origin) : null;
          const result = await load(sql, server, keys, product.id);
          const scrapes = scraper?.stop();
          if (scrapes !== undefined) log(`  /metrics scraped ${scrapes} times during the load`);
          await expectValid(server.origin, probes, product.id, 1);
          await stop(server.proc);
          const logLines = spec.kind === "depot" ? await server.stdoutLines() : 0;
          runs.push({ spec, round, result, logLines });
          log(
            `round ${round}/${rounds} ${label(spec)}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, ` +
              `p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}, ` +
              `CPU/req: server ${result.serverCpuUs.toFixed(0)} µs, PostgreSQL ${result.pgCpuUs.toFixed(0)} µs, ` +
              `autocannon ${result.loadCpuUs.toFixed(0)} µs; ` +
              `license_ips writes ${result.writes}` +
              (spec.kind === "depot" ? `, ${logLines} stdout lines` : ""),
          );
        } finally {
          await stop(server.proc);
        }
      }
    }

    const soakLines = soakSeconds > 0 ? await soak(sql, keys, product.id) : [];

    // 3. Report.
    const of = (spec: ServerSpec) => runs.filter((r) => r.spec.id === spec.id).map((r) => r.result);
    const unique = servers.filter((spec, i) => servers.findIndex((s) => s.id === spec.id) === i);
    const ref = unique.find((s) => s.kind === "ref");
    const refRps = ref ? median(of(ref).map((r) => r.rps)) : null;
    const lines = [
      "",
      `depot license validation — Bun ${Bun.version} (bench), ${cpuSummary()}, ${memorySummary()}, ${platform()}`,
      ...binaries.map((path) => {
        const stat = statSync(path);
        return `Binary: ${path}, ${(stat.size / 1024 / 1024).toFixed(1)} MiB, built ${stat.mtime.toISOString()}`;
      }),
      `Database: ${DB_NAME}, ${keys.length.toLocaleString("en-US")} licenses (licenses ${sizes?.licenses}, ` +
        `license_ips ${sizes?.ips}, database ${sizes?.database}), one product, ${CUSTOMERS} owners; ` +
        `one 127.0.0.1 row per license`,
      seedSeconds === null
        ? "Dataset: reused from an earlier run (--reseed rebuilds it)"
        : `Dataset: seeded in ${seedSeconds.toFixed(1)} s`,
      `Load: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s measured per run, ` +
        `a random key of the ${keys.length.toLocaleString("en-US")} per request; depot's stdout to a ${stdoutTo}; ` +
        "each server alone; order per round: " +
        `${servers.map(label).join(", ")}; ${rounds} round(s)`,
      "",
      "| server | log level | run | req/s | p50 | p99 | non-2xx | CPU/req: server | PostgreSQL | autocannon | writes |",
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    for (const [i, r] of runs.entries()) {
      const m = r.result;
      lines.push(
        `| ${serverName(r.spec)} | ${r.spec.level} | ${i + 1} | ${m.rps.toFixed(0)} | ` +
          `${m.p50} ms | ${m.p99} ms | ${m.non2xx + m.errors + m.timeouts} | ${m.serverCpuUs.toFixed(0)} µs | ` +
          `${m.pgCpuUs.toFixed(0)} µs | ${m.loadCpuUs.toFixed(0)} µs | ${m.writes} |`,
      );
    }
    lines.push("", "Medians:", "");
    lines.push(
      "| server | runs | req/s | p50 | p99 | req/s vs reference (per round) | target |",
      "|---|---:|---:|---:|---:|---|---|",
    );
    for (const spec of unique) {
      const results = of(spec);
      const rps = median(results.map((r) => r.rps));
      const p99 = median(results.map((r) => r.p99));
      const ratio = refRps ? rps / refRps : null;
      // Each run against the reference run of the same round.
      const perRound = runs
        .filter((r) => r.spec.id === spec.id)
        .map((r) => {
          const sameRound = runs.find((x) => x.spec.kind === "ref" && x.round === r.round);
          return sameRound ? (r.result.rps / sameRound.result.rps).toFixed(2) : "—";
        });
      const target =
        spec.kind === "ref"
          ? "—"
          : `${ratio !== null && ratio >= TARGET_RATIO ? "ratio met" : "ratio NOT met"}, ` +
            `${p99 < TARGET_P99_MS ? "p99 met" : "p99 NOT met"}`;
      lines.push(
        `| ${label(spec)} | ${results.length} | ${rps.toFixed(0)} | ${median(results.map((r) => r.p50))} ms | ` +
          `${p99} ms | ${ratio === null ? "—" : ratio.toFixed(2)}` +
          `${spec.kind === "ref" || !ref ? "" : ` (${perRound.join(", ")})`} | ${target} |`,
      );
    }
    lines.push(
      "",
      `Targets: depot ≥ ${TARGET_RATIO} × reference req/s and p99 < ${TARGET_P99_MS} ms (medians of the runs). ` +
        "CPU/req: user+system CPU over the measured seconds divided by the requests, of the server process, of " +
        "the PostgreSQL backends of its request pool (pg-boss's connections excluded) and of autocannon; " +
        "writes are license_ips rows whose last_seen_at moved during the load (warm-up included).",
    );
    lines.push(...soakLines, ...sqlLines);
    console.log(lines.join("\n"));
    return 0;
  } finally {
    await sql.end();
  }
}

await runMain(main);
