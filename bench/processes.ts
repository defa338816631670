// depot serve with 1 and with 2 HTTP processes, side by side in one run, under wrk (bench/README.md,
// "Several processes"; issue 36, target 5).
//
//   npm run build && bun bench/processes.ts [options]
//
//   --rounds N        rounds; each measures both paths on both servers, in alternating order (default 3)
//   --duration S      measured seconds per run (default 15)
//   --connections N   wrk connections (default 64; two wrk threads)
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --dir PATH        parent of the work directory (default the OS temp dir)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//
// What it does: a database of its own (dropped at exit) migrated by depot, an admin, a product with 50
// versions (a Windows installer each, rows only) and 2,000 licenses with 127.0.0.1 registered. Two
// servers on that database, both `depot serve --no-workers` at LOG_LEVEL info (request log to a file):
// SERVE_PROCESSES=1 and SERVE_PROCESSES=2. Per round, per path — signed validate (a random key of
// the 2,000 per request, wrk's Lua) and the electron `latest.yml` poll (`Authorization: License`) —
// `wrk -t2 -cN -dS --latency` drives each server. Reported per run: requests/s, p50 and p99, the CPU
// share wrk took of the machine (its utime + stime over the run ÷ cores × seconds), and 2 ÷ 1.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { builtBinary, depotBinary } from "./lib/depot.ts";
import { machineLine } from "./lib/machine.ts";
import type { BenchDatabase } from "./lib/postgres.ts";
import { runMain } from "./lib/processes.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { type WrkResult, wrk } from "./lib/wrk.ts";
import { log, wholeNumber } from "./lib.ts";

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "15" },
    connections: { type: "string", default: "64" },
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});
const rounds = wholeNumber("rounds", opts.rounds, 1);
const duration = wholeNumber("duration", opts.duration, 1);
const connections = wholeNumber("connections", opts.connections, 1);
const binary = depotBinary(opts.binary);
const LICENSES = 2000;
const FEED_KEY = "BENCH-PROCS-KEY00-00000-00001";

async function seed(database: BenchDatabase, productId: number, userId: number): Promise<string[]> {
  const sql = database.connect(2);
  const keys = Array.from(
    { length: LICENSES },
    (_, i) => `BENCH-PROCS-${String(i).padStart(5, "0")}-00000-00000`,
  );
  for (const key of [FEED_KEY, ...keys]) {
    const [license] = await sql<
      { id: string }[]
    >`INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
      VALUES (gen_random_uuid(), ${key}, ${userId}, ${userId}, ${productId}, 5) RETURNING id`;
    await sql`INSERT INTO license_ips (license_id, ip) VALUES (${license?.id ?? ""}, '127.0.0.1')`;
  }
  for (let i = 0; i < 50; i++) {
    const name = `1.${i}.0`;
    const [version] = await sql<{ id: number }[]>`
      INSERT INTO versions (product_id, version_number, title, changelog, changelog_format, published_at)
      VALUES (${productId}, ${name}, ${name}, ${`- changes in ${name}`}, 'markdown', now()) RETURNING id`;
    await sql`INSERT INTO artifacts (version_id, platform, arch, file_name, file_size, sha256, sha512,
        content_type, storage_key)
      VALUES (${version?.id ?? 0}, 'windows', 'x86_64', ${`App-Setup-${name}.exe`}, 84123456, ${"0".repeat(64)},
        ${"A".repeat(86)}, 'application/octet-stream', ${`products/${productId}/${crypto.randomUUID()}`})`;
  }
  await sql.unsafe("VACUUM ANALYZE");
  await sql.end();
  return keys;
}

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/processes.ts")) return 2;
  const bench = new ReleaseBench("processes", opts, `depot_bench_processes_${process.pid}`);
  // A pool of 10 per process, as the results in bench/README.md were measured (DATABASE_POOL_SIZE is
  // one `depot serve`'s total: its default of 20 would give one process twice two's share).
  const {
    server: one,
    productId,
    adminId,
  } = await bench.start({
    LOG_LEVEL: "info",
    SERVE_PROCESSES: "1",
    DATABASE_POOL_SIZE: "10",
  });
  const keys = await seed(bench.database, productId, adminId);
  const two = await bench.another("two", {
    LOG_LEVEL: "info",
    SERVE_PROCESSES: "2",
    DATABASE_POOL_SIZE: "20",
  });
  // Healthy once its first process listens; the second starts after it.
  const port = new URL(two.origin).port;
  let listening = 0;
  for (let i = 0; i < 600 && listening < 2; i++) {
    await Bun.sleep(100);
    const ss = Bun.spawn(["ss", "-Hltn", `( sport = :${port} )`], { stdout: "pipe" });
    listening = (await new Response(ss.stdout).text()).trim().split("\n").filter(Boolean).length;
  }
  if (listening < 2)
    throw new Error(`SERVE_PROCESSES=2: ${listening} process(es) listen on ${port} after 60 s`);
  const validateLua = join(bench.workDir, "validate.lua");
  writeFileSync(
    validateLua,
    `local keys = {${keys.map((k) => `"${k}"`).join(",")}}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  return wrk.format(nil, "/api/v1/licenses/validate", nil, '{"key":"' .. keys[math.random(#keys)] .. '"}')
end
`,
  );
  const feedLua = join(bench.workDir, "feed.lua");
  writeFileSync(
    feedLua,
    `wrk.headers["Authorization"] = "License ${FEED_KEY}"\nwrk.path = "/updates/${productId}/electron/latest.yml"\n`,
  );
  for (const origin of [one.origin, two.origin]) {
    const feed = await fetch(`${origin}/updates/${productId}/electron/latest.yml`, {
      headers: { authorization: `License ${FEED_KEY}` },
    });
    const body = await feed.text();
    if (feed.status !== 200 || !body.includes("1.49.0"))
      throw new Error(`feed: ${feed.status} ${body.slice(0, 200)}`);
    const valid = await fetch(`${origin}/api/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: keys[0] }),
    });
    const answer = await valid.text();
    if (!answer.includes('"VALID"')) throw new Error(`validate: ${valid.status} ${answer.slice(0, 200)}`);
  }
  log(machineLine());
  const paths = [
    { name: "signed validate", script: validateLua, path: "/api/v1/licenses/validate" },
    { name: "electron latest.yml", script: feedLua, path: `/updates/${productId}/electron/latest.yml` },
  ];
  const servers = { "1 process": one.origin, "2 processes": two.origin };
  const results: { round: number; path: string; server: string; result: WrkResult }[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const { name, script, path } of paths) {
      const order = round % 2 === 1 ? ["1 process", "2 processes"] : ["2 processes", "1 process"];
      for (const server of order) {
        const result = await wrk({
          url: `${servers[server as keyof typeof servers]}${path}`,
          connections,
          duration,
          script,
        });
        results.push({ round, path: name, server, result });
        log(
          `round ${round} ${name.padEnd(20)} ${server.padEnd(12)} ${result.rps.toFixed(0).padStart(6)} req/s` +
            `  p50 ${result.p50.padStart(8)}  p99 ${result.p99.padStart(8)}  wrk ${(result.wrkShare * 100).toFixed(0)} % of the CPU` +
            (result.errors ? `  (${result.errors})` : ""),
        );
      }
    }
  }
  for (const { name } of paths) {
    for (let round = 1; round <= rounds; round++) {
      const of = (server: string) =>
        results.find((r) => r.round === round && r.path === name && r.server === server)?.result.rps ?? 0;
      log(`round ${round} ${name}: 2 processes ÷ 1 = ${(of("2 processes") / of("1 process")).toFixed(2)}`);
    }
  }
  return 0;
}

await runMain(main);
