// Purchases listing over 1,000,000 purchases on PostgreSQL (bench/README.md, issue 3).
//
//   npm run build && bun bench/purchases.ts [options]
//
//   --reseed          drop and re-create the bench database even if it already holds the dataset
//   --drop-db         drop the bench database when done (it is kept otherwise, for the next run)
//   --duration S      seconds measured per scenario (default 15)
//   --warmup S        seconds of load before each measurement, discarded (default 3)
//   --connections N   concurrent clients (default 32)
//   --rounds N        run the whole scenario list N times; the table shows medians (default 1)
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//   --only K,K        run only these scenarios (and the health reference): user, product, customer,
//                     product-p200, p200, customer-all, vendor-all
//   --wait-idle S     before each measurement, wait up to S seconds for the machine to be idle
//                     (other processes using < 0.2 cores over 2 s); 0 never waits (default 60)
//
// What it does:
// 1. Database `depot_bench_purchases`: when it already holds the dataset below it is reused (seeding
//    takes about a minute); otherwise, or with --reseed, it is dropped, created, migrated with
//    `depot migrate` and seeded with set-based SQL: 10,000 users (100 vendors owning the 1,000
//    products, 9,900 customers), 2 options per product, 1,000,000 orders and 1,000,000 purchases
//    (one per order; buyer and product uniformly random; ids in created_at order), then
//    VACUUM ANALYZE. A reused database is migrated (new migrations, e.g. indexes, apply) and
//    ANALYZEd.
// 2. An admin user (`depot user:create`) and tokens (`depot token:create`) for it and for 16
//    seeded customers and 16 seeded vendors.
// 3. EXPLAIN (ANALYZE, BUFFERS) of the SQL the service runs for each scenario. The SQL is not
//    retyped: it is captured from the route's own `filterIds` and the service's `listPurchases` (the
//    actor from `authenticateToken`) through a logging Drizzle instance, so it follows the service.
// 4. `depot serve --no-workers` on a free port, and for each scenario autocannon (run by node, 32
//    connections) with the user/product id drawn at random per request. `GET /api/health` (one
//    `SELECT 1`) runs first and last as the reference for this noisy machine. Around each measured
//    run it reads the CPU time of the depot process and of the PostgreSQL backends of the bench
//    database from /proc (local server only), and reports CPU per request.
import { chmodSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type postgres from "postgres";
import type { Db } from "../src/db/client.ts";
import type { Actor } from "../src/features/auth/actor.ts";
import { filterIds } from "../src/features/purchases/schemas.ts";
import { listPurchases } from "../src/features/purchases/service.ts";

/** A scenario's query filters, as GET /api/purchases takes them. */
type PurchaseFilters = { user_id?: string; product_id?: string };

import { authenticateToken } from "../src/features/tokens/service.ts";
import { pageRequest } from "../src/page-request.ts";
import {
  BENCH_ADMIN,
  builtBinary,
  createToken,
  createUser,
  depotBinary,
  depotCli,
  depotEnv,
  startDepot,
} from "./lib/depot.ts";
import { autocannon, type LoadRequest, type LoadResult } from "./lib/load.ts";
import { cpuSummary, memorySummary, platform } from "./lib/machine.ts";
import { BenchDatabase, type Captured, capturingDb, explainAnalyze } from "./lib/postgres.ts";
import { runMain, stop, tempDir } from "./lib/processes.ts";
import { cpuSeconds, machineBusySeconds } from "./lib/procfs.ts";
import { log, median, sample, secondsSince, wholeNumber } from "./lib.ts";

const DB_NAME = "depot_bench_purchases";
const USERS = 10_000;
const VENDORS = 100;
const PRODUCTS = 1_000;
const PURCHASES = 1_000_000;
const SEED_BATCH = 100_000;
const ROLE_TOKENS = 16;
const TARGET_P99_MS = 20;
const EXPLAIN_SAMPLES = 20;

const { values: opts } = parseArgs({
  options: {
    reseed: { type: "boolean", default: false },
    "drop-db": { type: "boolean", default: false },
    duration: { type: "string", default: "15" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "1" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
    "wait-idle": { type: "string", default: "60" },
    only: { type: "string" },
  },
});

const duration = wholeNumber("duration", opts.duration, 0);
const warmup = wholeNumber("warmup", opts.warmup, 0);
const connections = wholeNumber("connections", opts.connections, 0);
const rounds = Math.max(1, wholeNumber("rounds", opts.rounds, 0));
const waitIdle = wholeNumber("wait-idle", opts["wait-idle"], 0);
const only = opts.only?.split(",").map((key) => key.trim());
const database = BenchDatabase.onServer(DB_NAME, opts.pg ?? "");
if (opts["drop-db"]) database.dropAtExit();
const binary = depotBinary(opts.binary);

// Temporary files, like every process started, are gone when this exits.
const workDir = tempDir("depot-bench-purchases-");
/** The copy of `binary` every command runs (see main). */
const runBinary = join(workDir, "depot");
const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: workDir });
const depot = depotCli(runBinary, env, workDir);

// ---------------------------------------------------------------------------------------------
// The dataset.

/** True when the database holds exactly the seeded dataset (a partial seed does not count). */
async function isSeeded(sql: postgres.Sql): Promise<boolean> {
  try {
    const [row] = await sql`
      SELECT (SELECT count(*) FROM users WHERE email LIKE 'bench-user-%')::int AS users,
             (SELECT count(*) FROM products WHERE slug LIKE 'bench-product-%')::int AS products,
             (SELECT count(*) FROM purchases)::int AS purchases`;
    return row?.users === USERS && row?.products === PRODUCTS && row?.purchases === PURCHASES;
  } catch {
    return false; // no schema yet
  }
}

/**
 * Users 1–10,000 (1–100 vendors, the rest customers), products 1–1,000 (product p owned by vendor
 * ((p−1) mod 100)+1), options 2p−1 "Standard" and 2p "Extended" of product p, then purchase/order n
 * for n in 1–1,000,000: buyer and product uniformly random, half with an option, 90 % quantity 1,
 * recorded in USD, paid 60/25/15 % in USD/EUR/GBP, created_at rising with the id over two years.
 * Explicit ids, then the identity sequences are moved past them.
 */
async function seed(sql: postgres.Sql) {
  const t0 = performance.now();
  await sql.begin(async (tx) => {
    await tx.unsafe(`
      INSERT INTO users (id, name, email, role_id, created_at, updated_at)
      SELECT g, 'Bench User ' || g, 'bench-user-' || g || '@depot.test',
             (SELECT id FROM roles WHERE name = CASE WHEN g <= ${VENDORS} THEN 'vendor' ELSE 'customer' END),
             timestamptz '2024-01-01 00:00Z', timestamptz '2024-01-01 00:00Z'
      FROM generate_series(1, ${USERS}) g`);
    await tx.unsafe(`
      INSERT INTO products (id, name, slug, description, user_id, created_at, updated_at)
      SELECT g, 'Bench Product ' || g, 'bench-product-' || g, 'Seeded by bench/purchases.ts',
             ((g - 1) % ${VENDORS}) + 1, timestamptz '2024-01-01 00:00Z', timestamptz '2024-01-01 00:00Z'
      FROM generate_series(1, ${PRODUCTS}) g`);
    await tx.unsafe(`
      INSERT INTO product_options (id, product_id, name, price)
      SELECT 2 * p - 1 + o, p, CASE o WHEN 0 THEN 'Standard' ELSE 'Extended' END,
             (5 + p % 95 + 0.99) * (1 + 2 * o)
      FROM generate_series(1, ${PRODUCTS}) p, generate_series(0, 1) o`);
  });
  log(`  users, products, options: ${secondsSince(t0).toFixed(1)} s`);

  await sql.unsafe("SELECT setseed(0.42)");
  await sql.unsafe(`
    CREATE TEMP TABLE bench_seed AS
    SELECT g AS id,
           1 + floor(random() * ${USERS})::bigint AS user_id,
           1 + floor(random() * ${PRODUCTS})::bigint AS product_id,
           random() AS r_option, random() AS r_quantity, random() AS r_currency,
           timestamptz '2024-01-01 00:00Z' + (g * interval '730 days') / ${PURCHASES} AS created_at
    FROM generate_series(1, ${PURCHASES}) g`);
  await sql.unsafe(`
    CREATE TEMP TABLE bench_priced AS
    SELECT s.id, s.user_id, s.product_id, s.created_at,
           CASE WHEN s.r_option < 0.5 THEN NULL
                ELSE 2 * s.product_id - CASE WHEN s.r_option < 0.8 THEN 1 ELSE 0 END END AS option_id,
           CASE WHEN s.r_quantity < 0.9 THEN 1 ELSE 2 + floor(s.r_quantity * 20)::int % 2 END AS quantity,
           (5 + s.product_id % 95 + 0.99) * CASE WHEN s.r_option >= 0.8 THEN 3 ELSE 1 END AS unit_price,
           c.id AS original_currency_id, c.rate
    FROM bench_seed s
    JOIN (SELECT id, code, CASE code WHEN 'EUR' THEN 1.08 WHEN 'GBP' THEN 1.27 ELSE 1 END AS rate
          FROM currencies) c
      ON c.code = CASE WHEN s.r_currency < 0.6 THEN 'USD' WHEN s.r_currency < 0.85 THEN 'EUR' ELSE 'GBP' END`);
  log(`  random draws: ${secondsSince(t0).toFixed(1)} s`);

  const [usd] = await sql<{ id: number }[]>`SELECT id::int FROM currencies WHERE code = 'USD'`;
  if (!usd) throw new Error("currency USD is missing (migration 0003 seeds it)");
  for (let from = 1; from <= PURCHASES; from += SEED_BATCH) {
    const to = Math.min(PURCHASES, from + SEED_BATCH - 1);
    await sql.begin(async (tx) => {
      await tx.unsafe(`
        INSERT INTO orders (id, user_id, currency_id, total, created_at, updated_at)
        SELECT id, user_id, ${usd.id}, unit_price * quantity,
               created_at, created_at
        FROM bench_priced WHERE id BETWEEN ${from} AND ${to} ORDER BY id`);
      await tx.unsafe(`
        INSERT INTO purchases (id, order_id, user_id, product_id, option_id, quantity, unit_price,
                               unit_price_currency_id, original_unit_price, original_currency_id,
                               currency_rate, created_at, updated_at)
        SELECT id, id, user_id, product_id, option_id, quantity, unit_price,
               ${usd.id}, round(unit_price / rate, 2),
               original_currency_id, rate, created_at, created_at
        FROM bench_priced WHERE id BETWEEN ${from} AND ${to} ORDER BY id`);
    });
    log(`  purchases ${to.toLocaleString("en-US")}: ${secondsSince(t0).toFixed(1)} s`);
  }
  await sql.unsafe("DROP TABLE bench_seed, bench_priced");
  for (const table of ["users", "products", "product_options", "orders", "purchases"]) {
    await sql.unsafe(
      `SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// EXPLAIN of the service's own SQL.

interface PlanSummary {
  /** The list query's plan (last sample), indented as EXPLAIN prints it. */
  plan: string[];
  sql: string;
  /** Execution time of the list query over the samples, ms. */
  listMs: number[];
  /** Execution time of the other statements the request runs (the id existence check), ms. */
  otherMs: number[];
}

function executionMs(plan: string[]): number {
  const line = plan.find((l) => l.startsWith("Execution Time:"));
  return Number(/([\d.]+) ms/.exec(line ?? "")?.[1] ?? Number.NaN);
}

async function explainScenario(
  sql: postgres.Sql,
  db: Db,
  captured: Captured[],
  samples: { actor: Actor; filters: PurchaseFilters; page: number }[],
): Promise<PlanSummary> {
  const listMs: number[] = [];
  const otherMs: number[] = [];
  let plan: string[] = [];
  let listSql = "";
  for (const sample of samples) {
    captured.length = 0;
    // What GET /api/purchases does: the filters as ids, then the list.
    const conditions = filterIds(sample.filters);
    await listPurchases({ db }, sample.actor, conditions, pageRequest({ page: String(sample.page) }));
    const statements = [...captured];
    for (const [i, statement] of statements.entries()) {
      const lines = await explainAnalyze(sql, statement);
      if (i === statements.length - 1) {
        listMs.push(executionMs(lines));
        plan = lines;
        listSql = statement.query;
      } else {
        otherMs.push(executionMs(lines));
      }
    }
  }
  return { plan, sql: listSql, listMs, otherMs };
}

// ---------------------------------------------------------------------------------------------
// Load.

/** A GET of `path`, with a bearer token when there is one. */
const get = (path: string, token?: string): LoadRequest => ({
  method: "GET",
  path,
  headers: token ? { authorization: `Bearer ${token}` } : {},
});

interface Measured extends LoadResult {
  /** µs of CPU per request: the depot process, and the PostgreSQL backends of the bench database. */
  serverCpuUs?: number | null;
  pgCpuUs?: number | null;
  /** CPU of the load tool's process per request, µs. */
  loaderCpuUs?: number;
  /** Cores kept busy by everything else on the machine during the run. */
  otherCores?: number;
}

/** One autocannon run of `seconds` against `url`, each request one of `targets` drawn at random. */
const load = (url: string, targets: LoadRequest[], seconds: number) =>
  autocannon({ url, connections, warmup: 0, duration: seconds, requests: targets, dir: workDir });

/**
 * Waits, up to `limitSeconds`, until the machine is idle: less than 0.2 cores busy over 2 s while
 * nothing of this bench is loaded. Other benchmarks share this machine; a measurement taken while
 * they run shows it in the "other load" column, and this avoids most of those collisions.
 */
async function untilIdle(limitSeconds: number) {
  const deadline = performance.now() + limitSeconds * 1000;
  while (performance.now() < deadline) {
    const before = machineBusySeconds();
    await Bun.sleep(2000);
    if ((machineBusySeconds() - before) / 2 < 0.2) return;
  }
}

/** CPU seconds used so far by the server and by the PostgreSQL backends serving this database. */
async function cpuSnapshot(sql: postgres.Sql, serverPid: number) {
  const backends = await sql<{ pid: number }[]>`
    SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`;
  const pg = new Map<number, number>();
  for (const { pid } of backends) {
    const used = cpuSeconds(pid);
    if (used !== null) pg.set(pid, used);
  }
  return { server: cpuSeconds(serverPid), pg, machine: machineBusySeconds(), at: performance.now() };
}

/**
 * Between two snapshots around one load run: µs of CPU per request of depot and of PostgreSQL (backends
 * seen in both; a local server only), and the cores everything else on the machine kept busy meanwhile
 * (the machine's busy time less depot, those backends and the load tool), so a disturbed run shows.
 */
function cpuPerRequest(
  before: Awaited<ReturnType<typeof cpuSnapshot>>,
  after: Awaited<ReturnType<typeof cpuSnapshot>>,
  result: LoadResult,
) {
  const serverSeconds = before.server !== null && after.server !== null ? after.server - before.server : null;
  let pgSeconds = 0;
  let seen = 0;
  for (const [pid, used] of after.pg) {
    const was = before.pg.get(pid);
    if (was === undefined) continue;
    pgSeconds += used - was;
    seen++;
  }
  const wall = (after.at - before.at) / 1000;
  const other = after.machine - before.machine - (serverSeconds ?? 0) - pgSeconds - result.loaderCpuSeconds;
  return {
    server: serverSeconds === null ? null : (serverSeconds / result.total) * 1e6,
    pg: seen > 0 ? (pgSeconds / result.total) * 1e6 : null,
    loader: (result.loaderCpuSeconds / result.total) * 1e6,
    otherCores: Math.max(0, other / wall),
  };
}

// ---------------------------------------------------------------------------------------------

interface Scenario {
  /** For --only. */
  key: string;
  label: string;
  targets: LoadRequest[];
  /** A first page with a filter: the p99 target applies. */
  target: boolean;
  /** Samples for EXPLAIN; none for /api/health. */
  explain: { actor: Actor; filters: PurchaseFilters; page: number }[];
}

async function main(): Promise<number> {
  const stat = builtBinary(binary, "npm run build && bun bench/purchases.ts");
  if (!stat) return 1;
  const size = stat.size;
  const built = stat.mtime.toISOString();
  // Another build may replace dist/depot while this runs: run a copy, and name it by its hash.
  copyFileSync(binary, runBinary);
  chmodSync(runBinary, 0o755);
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(runBinary).stream()) hasher.update(chunk);
  const binaryHash = hasher.digest("hex");

  // 1. Dataset.
  const seedSeconds = await database.prepare({
    reseed: opts.reseed ?? false,
    migrate: () => depot(["migrate"]),
    isSeeded,
    seed,
  });
  const reused = seedSeconds === null;

  const sql = database.connect(2);
  const { db, captured } = capturingDb(sql);
  try {
    const [sizes] = await sql`
      SELECT pg_size_pretty(pg_total_relation_size('purchases')) AS purchases,
             pg_size_pretty(pg_database_size(current_database())) AS database,
             (SELECT count(*) FROM purchases)::int AS n`;

    // 2. Users and tokens.
    let [admin] = await sql<{ id: number }[]>`SELECT id::int FROM users WHERE email = ${BENCH_ADMIN.email}`;
    if (!admin) admin = { id: await createUser(depot, BENCH_ADMIN) };
    const token = (userId: number) => createToken(depot, userId);
    const adminToken = await token(admin.id);
    const actor = async (bearer: string) => {
      const found = await authenticateToken({ db }, bearer);
      if (!found) throw new Error("a token the CLI just made did not authenticate");
      return found;
    };
    const adminActor = await actor(adminToken);
    /** Seeded users of a role, each with a fresh token and the actor the service sees for it. */
    const seededUsers = async (role: "customer" | "vendor") => {
      const ids = await sql<{ id: number }[]>`
        SELECT u.id::int FROM users u JOIN roles r ON r.id = u.role_id
        WHERE r.name = ${role} AND u.email LIKE 'bench-user-%' ORDER BY random() LIMIT ${ROLE_TOKENS}`;
      const made: { id: number; token: string; actor: Actor }[] = [];
      for (const { id } of ids) {
        const bearer = await token(id);
        made.push({ id, token: bearer, actor: await actor(bearer) });
      }
      return made;
    };
    const customers = await seededUsers("customer");
    const vendors = await seededUsers("vendor");
    log(`admin user ${admin.id}; tokens for it, ${customers.length} customers and ${vendors.length} vendors`);

    const userIds = (
      await sql<{ id: number }[]>`SELECT id::int FROM users WHERE email LIKE 'bench-user-%'`
    ).map((r) => r.id);
    const productIds = (await sql<{ id: number }[]>`SELECT id::int FROM products`).map((r) => r.id);
    const [counts] = await sql`
      SELECT (SELECT count(*) FROM purchases WHERE product_id = ${productIds[0] ?? 0})::int AS per_product,
             (SELECT count(*) FROM purchases WHERE user_id = ${userIds[0] ?? 0})::int AS per_user`;

    const purchasesPath = "/api/purchases";
    const allScenarios: Scenario[] = [
      {
        key: "user",
        label: "admin `?user_id=U`",
        targets: userIds.map((id) => get(`${purchasesPath}?user_id=${id}`, adminToken)),
        target: true,
        explain: sample(userIds, EXPLAIN_SAMPLES).map((id) => ({
          actor: adminActor,
          filters: { user_id: String(id) },
          page: 1,
        })),
      },
      {
        key: "product",
        label: "admin `?product_id=P`",
        targets: productIds.map((id) => get(`${purchasesPath}?product_id=${id}`, adminToken)),
        target: true,
        explain: sample(productIds, EXPLAIN_SAMPLES).map((id) => ({
          actor: adminActor,
          filters: { product_id: String(id) },
          page: 1,
        })),
      },
      {
        key: "customer",
        label: "customer `?user_id=self`",
        targets: customers.map((c) => get(`${purchasesPath}?user_id=${c.id}`, c.token)),
        target: true,
        explain: customers.map((c) => ({ actor: c.actor, filters: { user_id: String(c.id) }, page: 1 })),
      },
      {
        key: "product-p200",
        label: "admin `?product_id=P&page=200` (past the end: empty page)",
        targets: productIds.map((id) => get(`${purchasesPath}?product_id=${id}&page=200`, adminToken)),
        target: false,
        explain: sample(productIds, EXPLAIN_SAMPLES).map((id) => ({
          actor: adminActor,
          filters: { product_id: String(id) },
          page: 200,
        })),
      },
      {
        key: "p200",
        label: "admin `?page=200` (no filter)",
        targets: [get(`${purchasesPath}?page=200`, adminToken)],
        target: false,
        explain: Array.from({ length: 5 }, () => ({ actor: adminActor, filters: {}, page: 200 })),
      },
      {
        key: "customer-all",
        label: "customer, no filter (own + own products', OR subquery)",
        targets: customers.map((c) => get(purchasesPath, c.token)),
        target: false,
        explain: customers.map((c) => ({ actor: c.actor, filters: {}, page: 1 })),
      },
      {
        key: "vendor-all",
        label: "vendor, no filter (own + 10 owned products', OR subquery)",
        targets: vendors.map((v) => get(purchasesPath, v.token)),
        target: false,
        explain: vendors.map((v) => ({ actor: v.actor, filters: {}, page: 1 })),
      },
    ];
    const scenarios = only ? allScenarios.filter((s) => only.includes(s.key)) : allScenarios;
    if (scenarios.length === 0)
      throw new Error(`--only matched no scenario: ${allScenarios.map((s) => s.key)}`);
    const health: Scenario = {
      key: "health",
      label: "`/api/health` (reference)",
      targets: [get("/api/health")],
      target: false,
      explain: [],
    };

    // 3. EXPLAIN.
    const plans = new Map<Scenario, PlanSummary>();
    for (const scenario of scenarios) {
      plans.set(scenario, await explainScenario(sql, db, captured, scenario.explain));
    }

    // 4. The server and the load.
    const server = await startDepot({
      binary: runBinary,
      cwd: workDir,
      env,
      stdout: join(workDir, "depot.log"),
      stderr: join(workDir, "depot.err"),
    });
    const { origin } = server;

    // Every scenario answers 200 with the page size we expect before it is measured.
    const rowsPerPage = new Map<Scenario, string>();
    for (const scenario of scenarios) {
      const seen = new Set<number>();
      for (const target of sample(scenario.targets, 5)) {
        const res = await fetch(`${origin}${target.path}`, { headers: target.headers });
        const body = (await res.json()) as { data?: unknown[] };
        if (res.status !== 200 || !Array.isArray(body.data)) {
          throw new Error(`${target.path} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
        }
        seen.add(body.data.length);
      }
      rowsPerPage.set(scenario, [...seen].join("/"));
    }

    const order = [health, ...scenarios, health];
    const results = new Map<Scenario, Measured[]>();
    for (let round = 1; round <= rounds; round++) {
      for (const scenario of order) {
        await untilIdle(waitIdle);
        if (warmup > 0) await load(origin, scenario.targets, warmup);
        const before = await cpuSnapshot(sql, server.proc.pid);
        const loaded = await load(origin, scenario.targets, duration);
        const cpu = cpuPerRequest(before, await cpuSnapshot(sql, server.proc.pid), loaded);
        const result: Measured = {
          ...loaded,
          serverCpuUs: cpu.server,
          pgCpuUs: cpu.pg,
          loaderCpuUs: cpu.loader,
          otherCores: cpu.otherCores,
        };
        results.set(scenario, [...(results.get(scenario) ?? []), result]);
        log(
          `round ${round}/${rounds} ${scenario.label}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, ` +
            `p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}, ` +
            `CPU/req depot ${cpu.server?.toFixed(0)} µs, PostgreSQL ${cpu.pg?.toFixed(0)} µs, ` +
            `autocannon ${cpu.loader.toFixed(0)} µs; other load ${cpu.otherCores.toFixed(2)} cores`,
        );
      }
    }
    await stop(server.proc);

    // 5. Report.
    const of = (scenario: Scenario, pick: (r: Measured) => number) =>
      median((results.get(scenario) ?? []).map(pick));
    const healthRps = of(health, (r) => r.rps);
    const healthP99 = of(health, (r) => r.p99);
    const lines = [
      "",
      `depot purchases listing — Bun ${Bun.version} (bench), ${cpuSummary()}, ${memorySummary()}, ${platform()}`,
      `Binary: ${binary}, ${(size / 1024 / 1024).toFixed(1)} MiB, built ${built}, sha256 ${binaryHash.slice(0, 12)}`,
      `Database: ${DB_NAME}, ${sizes?.n.toLocaleString("en-US")} purchases (purchases table + indexes ` +
        `${sizes?.purchases}, database ${sizes?.database}); ${USERS.toLocaleString("en-US")} users, ` +
        `${PRODUCTS.toLocaleString("en-US")} products; e.g. ${counts?.per_user} purchases of user ` +
        `${userIds[0]}, ${counts?.per_product} of product ${productIds[0]}`,
      reused
        ? "Dataset: reused from an earlier run (--reseed rebuilds it)"
        : `Dataset: seeded in ${seedSeconds?.toFixed(1)} s (inserts + VACUUM ANALYZE)`,
      `Load: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s per scenario, ` +
        `${rounds} round(s)${rounds > 1 ? " (medians)" : ""}; ids drawn at random per request`,
      "",
      "| scenario | rows/page | req/s | p50 | p99 | non-2xx | errors | req/s vs health | p99 vs health " +
        "| CPU/req depot | CPU/req PostgreSQL | CPU/req autocannon | other load |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    for (const scenario of [health, ...scenarios]) {
      const runs = results.get(scenario) ?? [];
      const rps = of(scenario, (r) => r.rps);
      const p99 = of(scenario, (r) => r.p99);
      const sum = (pick: (r: Measured) => number) => runs.reduce((n, r) => n + pick(r), 0);
      const cpu = (pick: (r: Measured) => number | null | undefined) => {
        const values = runs.map(pick).filter((v): v is number => typeof v === "number");
        return values.length > 0 ? `${median(values).toFixed(0)} µs` : "—";
      };
      const isHealth = scenario === health;
      lines.push(
        `| ${scenario.label} | ${isHealth ? "—" : rowsPerPage.get(scenario)} | ${rps.toFixed(0)} | ` +
          `${of(scenario, (r) => r.p50)} ms | ${p99} ms | ${sum((r) => r.non2xx)} | ` +
          `${sum((r) => r.errors + r.timeouts)} | ` +
          `${isHealth ? "1" : (rps / healthRps).toFixed(2)} | ${isHealth ? "1" : (p99 / healthP99).toFixed(1)} | ` +
          `${cpu((r) => r.serverCpuUs)} | ${cpu((r) => r.pgCpuUs)} | ${cpu((r) => r.loaderCpuUs)} | ` +
          `${of(scenario, (r) => r.otherCores ?? 0).toFixed(2)} cores |`,
      );
    }
    if (rounds > 1) {
      lines.push("", "Per round, req/s · p99 (other load in cores):");
      for (const scenario of [health, ...scenarios]) {
        const runs = (results.get(scenario) ?? []).map(
          (r) => `${r.rps.toFixed(0)} · ${r.p99} ms (${(r.otherCores ?? 0).toFixed(2)})`,
        );
        lines.push(`  ${scenario.label}: ${runs.join(", ")}`);
      }
      // On a shared machine the median can be a disturbed run: also show each scenario's quietest.
      lines.push(
        "",
        "Quietest round of each scenario (least other load):",
        "",
        "| scenario | req/s | p50 | p99 | CPU/req depot | CPU/req PostgreSQL | other load |",
        "|---|---:|---:|---:|---:|---:|---:|",
      );
      for (const scenario of [health, ...scenarios]) {
        const [first, ...rest] = results.get(scenario) ?? [];
        if (!first) continue;
        const quiet = rest.reduce((a, b) => ((b.otherCores ?? 0) < (a.otherCores ?? 0) ? b : a), first);
        const us = (v: number | null | undefined) => (typeof v === "number" ? `${v.toFixed(0)} µs` : "—");
        lines.push(
          `| ${scenario.label} | ${quiet.rps.toFixed(0)} | ${quiet.p50} ms | ${quiet.p99} ms | ` +
            `${us(quiet.serverCpuUs)} | ${us(quiet.pgCpuUs)} | ${(quiet.otherCores ?? 0).toFixed(2)} cores |`,
        );
      }
    }
    const filtered = scenarios.filter((s) => s.target);
    const worst = Math.max(...filtered.map((s) => of(s, (r) => r.p99)));
    if (filtered.length > 0) {
      lines.push(
        "",
        `Target p99 < ${TARGET_P99_MS} ms on filtered first pages (${filtered.length} scenarios), ` +
          `${connections} clients: ${worst < TARGET_P99_MS ? "met" : "NOT met"} (worst p99 ${worst} ms).`,
      );
    }
    lines.push(
      "",
      `EXPLAIN (ANALYZE, BUFFERS) of the service's SQL, second run, ${EXPLAIN_SAMPLES} samples where ids vary:`,
    );
    for (const scenario of scenarios) {
      const plan = plans.get(scenario);
      if (!plan) continue;
      const ms = (values: number[]) =>
        values.length === 0
          ? "—"
          : `${Math.min(...values).toFixed(3)} / ${median(values).toFixed(3)} / ${Math.max(...values).toFixed(3)} ms`;
      lines.push(
        "",
        `### ${scenario.label}`,
        `list query execution min/median/max: ${ms(plan.listMs)}; id check: ${ms(plan.otherMs)}`,
        `SQL: ${plan.sql}`,
        ...plan.plan.map((line) => `    ${line}`),
      );
    }
    console.log(lines.join("\n"));
    return 0;
  } finally {
    await sql.end();
  }
}

await runMain(main);
