// License validation on PostgreSQL against a bare Bun.serve + postgres.js reference (bench/README.md, issue 4).
//
//   npm run build && bun bench/validate.ts [options]
//
//   --rounds N        how many times the server list runs, in order (default 2: ref, depot, ref, depot…)
//   --servers LIST    comma-separated, run in this order each round: ref, info, warn, or depot:LEVEL
//                     for any LOG_LEVEL (default ref,info,warn: the reference, depot at its default
//                     level, depot at warn). LEVEL@PATH runs another depot binary, e.g. a build with a
//                     candidate change, interleaved with the others: warn,warn@/tmp/depot-candidate
//   --duration S      seconds measured per run (default 20)
//   --warmup S        seconds of the same load before each measurement, discarded (default 3)
//   --connections N   concurrent autocannon connections, and callers in the SQL-alone part (default 64)
//   --sql-seconds S   seconds per statement in the SQL-alone part (default 5; 0 skips it)
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
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Subprocess } from "bun";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "../src/db/client.ts";
import * as schema from "../src/db/schema/index.ts";
import { generateLicenseKey } from "../src/features/licenses/keys.ts";
import { validateLicenseKey } from "../src/features/licenses/validate.ts";
import { freePort, median } from "./lib.ts";

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
const TARGET_RATIO = 0.7;
const TARGET_P99_MS = 15;
const CLK_TCK = 100; // /proc/<pid>/stat times are in clock ticks (USER_HZ, 100 on Linux)

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    servers: { type: "string", default: "ref,info,warn" },
    duration: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    "sql-seconds": { type: "string", default: "5" },
    stdout: { type: "string", default: "pipe" },
    reseed: { type: "boolean", default: false },
    "drop-db": { type: "boolean", default: false },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});

function whole(name: string, raw: string | undefined, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new Error(`--${name} must be a whole number ≥ ${min}, got ${raw}`);
  return n;
}
const rounds = whole("rounds", opts.rounds, 1);
const duration = whole("duration", opts.duration, 1);
const warmup = whole("warmup", opts.warmup, 0);
const connections = whole("connections", opts.connections, 1);
const sqlSeconds = whole("sql-seconds", opts["sql-seconds"], 0);
const stdoutTo = opts.stdout;
if (stdoutTo !== "pipe" && stdoutTo !== "file")
  throw new Error(`--stdout must be pipe or file, got ${stdoutTo}`);
const pgBase = (opts.pg ?? "").replace(/\/+$/, "");
const adminUrl = `${pgBase}/postgres`;
const benchUrl = `${pgBase}/${DB_NAME}`;
const binary = opts.binary ? resolve(opts.binary) : fileURLToPath(new URL("../dist/depot", import.meta.url));
const referenceScript = fileURLToPath(new URL("./validate-reference.ts", import.meta.url));
const autocannonPath = fileURLToPath(import.meta.resolve("autocannon"));

interface ServerSpec {
  /** Tells the runs of one server apart: "ref", or LEVEL@binary. */
  id: string;
  kind: "ref" | "depot";
  /** depot's LOG_LEVEL; "—" for the reference */
  level: string;
  /** The depot binary; "" for the reference. */
  binary: string;
}
const LEVELS = ["debug", "info", "warn", "error", "silent"]; // src/config.ts LOG_LEVELS
const servers: ServerSpec[] = (opts.servers ?? "").split(",").map((raw) => {
  const name = raw.trim();
  if (name === "ref") return { id: "ref", kind: "ref", level: "—", binary: "" };
  const [spec = "", path] = name.split("@");
  const level = spec.startsWith("depot:") ? spec.slice("depot:".length) : spec;
  if (!LEVELS.includes(level))
    throw new Error(`--servers: unknown entry "${name}" (ref, info, warn, depot:LEVEL, LEVEL@PATH)`);
  const bin = path ? resolve(path) : binary;
  return { id: `${level}@${bin}`, kind: "depot", level, binary: bin };
});
const binaries = [...new Set(servers.filter((s) => s.kind === "depot").map((s) => s.binary))];
/** "depot", or "depot (<file name>)" for a binary other than --binary. */
const serverName = (spec: ServerSpec) =>
  spec.kind === "ref" ? "reference" : spec.binary === binary ? "depot" : `depot (${basename(spec.binary)})`;

const log = (line: string) => console.error(line);

// ---------------------------------------------------------------------------------------------
// Processes and temporary files: all gone when this exits, however it exits.

const running = new Set<Subprocess>();
const workDir = mkdtempSync(join(tmpdir(), "depot-bench-validate-"));

async function cleanup() {
  const procs = [...running];
  running.clear();
  for (const proc of procs) {
    try {
      proc.kill("SIGKILL");
    } catch {}
  }
  await Promise.all(procs.map((proc) => proc.exited));
  rmSync(workDir, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

/** The caller's environment minus depot's settings, plus the bench database and a private DATA_DIR. */
function depotEnv(extra: Record<string, string> = {}): Record<string, string> {
  const depotSettings = new Set([
    "DATABASE_URL",
    "TEST_DATABASE_URL",
    "DATA_DIR",
    "STORAGE_DIR",
    "APP_KEY",
    "APP_URL",
    "HOST",
    "PORT",
    "LOG_LEVEL",
    "TRUST_PROXY",
  ]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !depotSettings.has(key)) env[key] = value;
  }
  return { ...env, DATABASE_URL: benchUrl, DATA_DIR: workDir, ...extra };
}

/** Runs a depot CLI command; returns its stdout, throws with its stderr on a non-zero exit. */
async function depot(args: string[]): Promise<string> {
  const proc = Bun.spawn([binary, ...args], {
    cwd: workDir,
    env: depotEnv(),
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(proc);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  running.delete(proc);
  if (code !== 0) throw new Error(`depot ${args.join(" ")} exited ${code}:\n${err.trim()}`);
  return out;
}

const seconds = (t0: number) => (performance.now() - t0) / 1000;

// ---------------------------------------------------------------------------------------------
// The dataset.

async function withAdmin<T>(fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

const databaseExists = () =>
  withAdmin(async (admin) => (await admin`SELECT 1 FROM pg_database WHERE datname = ${DB_NAME}`).length > 0);

const recreateDatabase = () =>
  withAdmin(async (admin) => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${DB_NAME}`);
  });

const dropDatabase = () =>
  withAdmin((admin) => admin.unsafe(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`));

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

interface Running {
  proc: Subprocess;
  origin: string;
  errPath: string;
  /** Lines the server wrote to stdout; call once it has exited. */
  stdoutLines(): Promise<number>;
}

async function startServer(spec: ServerSpec, run: number): Promise<Running> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const name = spec.kind === "ref" ? "ref" : `depot-${spec.level}-${basename(spec.binary)}`;
  const outPath = join(workDir, `${name}-${run}.out`);
  const errPath = join(workDir, `${name}-${run}.err`);
  const toPipe = spec.kind === "depot" && stdoutTo === "pipe";
  const proc =
    spec.kind === "ref"
      ? Bun.spawn([process.execPath, referenceScript], {
          cwd: workDir,
          env: { ...process.env, DATABASE_URL: benchUrl, PORT: String(port), POOL_MAX: String(POOL_MAX) },
          stdin: "ignore",
          stdout: Bun.file(outPath),
          stderr: Bun.file(errPath),
        })
      : Bun.spawn([spec.binary, "serve", "--no-workers"], {
          cwd: workDir,
          env: depotEnv({ PORT: String(port), HOST: "127.0.0.1", APP_URL: origin, LOG_LEVEL: spec.level }),
          stdin: "ignore",
          stdout: toPipe ? "pipe" : Bun.file(outPath),
          stderr: Bun.file(errPath),
        });
  running.add(proc);
  let piped = 0;
  const out: unknown = proc.stdout;
  // Read and dropped as it comes, only the newlines counted.
  const drained =
    toPipe && out instanceof ReadableStream
      ? (async () => {
          for await (const chunk of out as ReadableStream<Uint8Array>) {
            for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) piped++;
          }
        })()
      : Promise.resolve();
  const stdoutLines = async () => {
    await drained;
    return toPipe ? piped : readFileSync(outPath, "utf8").split("\n").filter(Boolean).length;
  };
  const health = spec.kind === "ref" ? "/health" : "/api/health";
  const t0 = performance.now();
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(
        `${name} exited (${proc.exitCode ?? proc.signalCode}):\n${readFileSync(errPath, "utf8")}`,
      );
    }
    if (performance.now() - t0 > 30_000) throw new Error(`${name} was not healthy within 30 s`);
    try {
      const res = await fetch(`${origin}${health}`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    await Bun.sleep(50);
  }
  return { proc, origin, errPath, stdoutLines };
}

async function stopServer(server: Running) {
  server.proc.kill("SIGTERM");
  const exited = await Promise.race([server.proc.exited, Bun.sleep(30_000).then(() => "timeout" as const)]);
  if (exited === "timeout") server.proc.kill("SIGKILL");
  await server.proc.exited;
  running.delete(server.proc);
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
// CPU accounting from /proc.

/** utime + stime of a process in seconds, or null when it cannot be read. */
function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

const sumCpu = (pids: number[]) => pids.reduce((sum, pid) => sum + (cpuSeconds(pid) ?? 0), 0);

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

interface Captured {
  query: string;
  params: unknown[];
}

/**
 * The statements the service runs to validate `key` from 127.0.0.1, captured from its own
 * validateLicenseKey through a logging Drizzle instance (so the SQL is not retyped and follows the
 * service). A known address whose last_seen_at is fresh must take exactly one statement.
 */
async function serviceStatement(sql: postgres.Sql, key: string, productId: string): Promise<Captured> {
  const captured: Captured[] = [];
  const db = drizzle({
    client: sql,
    schema,
    logger: { logQuery: (query, params) => captured.push({ query, params }) },
  }) as unknown as Db;
  const answer = await validateLicenseKey({ db }, { key, productId, ip: IP, vouchingKey: null });
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
  const pool = postgres(benchUrl, { max: POOL_MAX, onnotice: () => {} });
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
    const elapsed = seconds(t0);
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
  const explain = async () =>
    (await sql.unsafe(`EXPLAIN (ANALYZE, BUFFERS) ${statement.query}`, params(sampleKey))).map((row) =>
      String(row["QUERY PLAN"]),
    );
  await explain();
  const plan = await explain();

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

interface LoadResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

// Runs under node: autocannon is a node tool, and a separate process keeps its CPU out of this one.
// One autocannon instance for the warm-up (discarded), then one for the measurement; the bench
// process is told between the two (a line on stderr) so it can start its CPU counters.
const LOAD_RUNNER = `
const autocannon = require(process.env.BENCH_AUTOCANNON);
const cfg = JSON.parse(require("node:fs").readFileSync(process.env.BENCH_LOAD, "utf8"));
const bodies = cfg.keys.map((key) => JSON.stringify({ key, productId: cfg.productId }));
const run = (duration) => new Promise((resolve, reject) => {
  autocannon({
    url: cfg.url,
    connections: cfg.connections,
    duration,
    requests: [{
      method: "POST",
      path: "/api/v1/licenses/validate",
      headers: { "content-type": "application/json" },
      setupRequest: (req) => ({ ...req, body: bodies[Math.floor(Math.random() * bodies.length)] }),
    }],
  }, (error, result) => (error ? reject(error) : resolve(result)));
});
(async () => {
  if (cfg.warmup > 0) await run(cfg.warmup);
  process.stderr.write("measuring\\n");
  const r = await run(cfg.duration);
  process.stderr.write("done\\n");
  process.stdout.write(JSON.stringify({
    rps: r.requests.total / r.duration, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99,
    max: r.latency.max, total: r.requests.total, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts,
  }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

interface Measured extends LoadResult {
  serverCpuUs: number;
  pgCpuUs: number;
  /** autocannon's own CPU, to show how much of the two cores the load generator takes. */
  loadCpuUs: number;
  writes: number;
}

async function load(
  sql: postgres.Sql,
  server: Running,
  keys: string[],
  productId: string,
): Promise<Measured> {
  const [start] = await sql<{ now: Date }[]>`SELECT now()`;
  const since = start?.now ?? new Date(0);
  const config = join(workDir, "load.json");
  await Bun.write(
    config,
    JSON.stringify({ url: server.origin, connections, duration, warmup, keys, productId }),
  );
  const proc = Bun.spawn(["node", "-e", LOAD_RUNNER], {
    env: { ...process.env, BENCH_AUTOCANNON: autocannonPath, BENCH_LOAD: config },
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(proc);
  let err = "";
  let before: { server: number; pg: number; load: number; pids: number[] } | null = null;
  let after: { server: number; pg: number; load: number } | null = null;
  const watch = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) {
      err += decoder.decode(chunk, { stream: true });
      if (!before && err.includes("measuring\n")) {
        const pids = await backendPids(sql);
        before = {
          server: cpuSeconds(server.proc.pid) ?? 0,
          pg: sumCpu(pids),
          load: cpuSeconds(proc.pid) ?? 0,
          pids,
        };
      }
      if (before && !after && err.includes("done\n")) {
        after = {
          server: cpuSeconds(server.proc.pid) ?? 0,
          pg: sumCpu(before.pids),
          load: cpuSeconds(proc.pid) ?? 0,
        };
      }
    }
  })();
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited, watch]);
  running.delete(proc);
  if (code !== 0) throw new Error(`autocannon exited ${code}:\n${err.trim()}`);
  const result = JSON.parse(out) as LoadResult;
  const b = before as { server: number; pg: number; load: number; pids: number[] } | null;
  const a = after as { server: number; pg: number; load: number } | null;
  if (!b || !a) throw new Error(`autocannon did not report its phases:\n${err.trim()}`);
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

// ---------------------------------------------------------------------------------------------

function sample<T>(items: T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, n);
}

const label = (spec: ServerSpec) =>
  spec.kind === "ref" ? "reference" : `${serverName(spec)}, LOG_LEVEL=${spec.level}`;

async function main(): Promise<number> {
  // --binary also runs `depot migrate`, so it must exist even when only the reference is measured.
  for (const path of new Set([binary, ...binaries])) {
    try {
      statSync(path);
    } catch {
      console.error(`${path} does not exist. Build it first:\n\n  npm run build && bun bench/validate.ts`);
      return 1;
    }
  }

  // 1. Dataset.
  let reused = false;
  let seedSeconds = 0;
  if (!opts.reseed && (await databaseExists())) {
    const probe = postgres(benchUrl, { max: 1, onnotice: () => {} });
    reused = await isSeeded(probe);
    await probe.end();
  }
  if (reused) {
    log(`reusing ${DB_NAME} (--reseed to rebuild it); migrating and analysing`);
    await depot(["migrate"]);
  } else {
    log(`creating ${DB_NAME}`);
    await recreateDatabase();
    await depot(["migrate"]);
    const t0 = performance.now();
    const seeder = postgres(benchUrl, { max: 1, onnotice: () => {} });
    try {
      await seed(seeder);
      await seeder.unsafe("VACUUM (ANALYZE)");
    } finally {
      await seeder.end();
    }
    seedSeconds = seconds(t0);
    log(`seeded in ${seedSeconds.toFixed(1)} s`);
  }

  const sql = postgres(benchUrl, { max: 1, onnotice: () => {} });
  try {
    if (reused) await sql.unsafe("ANALYZE");
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
        const server = await startServer(spec, n);
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
          log(`  ${label(spec)}: all ${keys.length} keys VALID in ${seconds(t0).toFixed(1)} s`);
          const result = await load(sql, server, keys, product.id);
          await expectValid(server.origin, probes, product.id, 1);
          await stopServer(server);
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
          if (running.has(server.proc)) await stopServer(server);
        }
      }
    }

    // 3. Report.
    const of = (spec: ServerSpec) => runs.filter((r) => r.spec.id === spec.id).map((r) => r.result);
    const unique = servers.filter((spec, i) => servers.findIndex((s) => s.id === spec.id) === i);
    const ref = unique.find((s) => s.kind === "ref");
    const refRps = ref ? median(of(ref).map((r) => r.rps)) : null;
    const cpu = cpus()[0]?.model ?? "unknown CPU";
    const lines = [
      "",
      `depot license validation — Bun ${Bun.version} (bench), ${cpus().length} × ${cpu}, ` +
        `${(totalmem() / 1024 ** 3).toFixed(0)} GiB, ${process.platform}-${process.arch}`,
      ...binaries.map((path) => {
        const stat = statSync(path);
        return `Binary: ${path}, ${(stat.size / 1024 / 1024).toFixed(1)} MiB, built ${stat.mtime.toISOString()}`;
      }),
      `Database: ${DB_NAME}, ${keys.length.toLocaleString("en-US")} licenses (licenses ${sizes?.licenses}, ` +
        `license_ips ${sizes?.ips}, database ${sizes?.database}), one product, ${CUSTOMERS} owners; ` +
        `one 127.0.0.1 row per license`,
      reused
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
    lines.push(...sqlLines);
    console.log(lines.join("\n"));
    return 0;
  } finally {
    await sql.end();
  }
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  code = 1;
} finally {
  await cleanup();
  if (opts["drop-db"]) {
    await dropDatabase();
    log(`dropped ${DB_NAME}`);
  }
}
process.exit(code);
