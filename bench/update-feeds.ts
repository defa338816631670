// Update feed polls against a bare reference, side by side in the same run (bench/README.md, issue 25).
//
//   npm run build && bun bench/update-feeds.ts [options]
//
//   --rounds N        rounds; each measures every feed on both servers, in alternating order (default 2)
//   --duration S      measured seconds per run (default 15)
//   --warmup S        unmeasured seconds before each run (default 3)
//   --connections N   wrk connections (default 64; two wrk threads)
//   --versions N      published versions of the product (default 50)
//   --dir PATH        parent of the work directory (default the OS temp dir)
//   --pg URL          PostgreSQL server, without a database name (default postgres://root@127.0.0.1:5432)
//   --binary PATH     the depot binary (default dist/depot; this script builds nothing)
//
// What it does: a database of its own (dropped at exit) migrated by depot, an admin, a product, a
// license of the admin's for it, and N versions 1.0.0 … 1.(N-1).0, each with a Windows installer and a
// signed Linux bundle (rows only: a poll reads no file). Two servers on that database, each with a pool
// of 10: `depot serve --no-workers` with one HTTP process (SERVE_PROCESSES=1: the reference is one;
// LOG_LEVEL info, its request log to a file) and bench/update-feeds-reference.ts. Both must answer
// each feed with the newest version first. Then per round, per feed — electron `latest.yml`, the
// Tauri check and the signed upgrade check from 1.0.0, `Authorization: License` on every request —
// `wrk -t2 -cN --latency` (Debian's, C) drives each server for the warm-up (discarded) and the
// measured seconds. Reported: requests/s, p50 and p99 per run, wrk's own CPU share of the machine,
// and depot ÷ reference.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { builtBinary, depotBinary } from "./lib/depot.ts";
import { machineLine } from "./lib/machine.ts";
import type { BenchDatabase } from "./lib/postgres.ts";
import { runMain, startServer, textOf } from "./lib/processes.ts";
import { ReleaseBench } from "./lib/releases.ts";
import { type WrkResult, wrk } from "./lib/wrk.ts";
import { log, wholeNumber } from "./lib.ts";

const { values: opts } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    duration: { type: "string", default: "15" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    versions: { type: "string", default: "50" },
    dir: { type: "string" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});
const rounds = wholeNumber("rounds", opts.rounds, 1);
const duration = wholeNumber("duration", opts.duration, 1);
const warmup = wholeNumber("warmup", opts.warmup, 0);
const connections = wholeNumber("connections", opts.connections, 1);
const versionCount = wholeNumber("versions", opts.versions, 2);
const binary = depotBinary(opts.binary);
const referenceScript = fileURLToPath(new URL("./update-feeds-reference.ts", import.meta.url));
const LICENSE_KEY = "BENCH-FEEDS-KEY00-00000-00001";

async function seed(database: BenchDatabase, productId: number, userId: number) {
  const sql = database.connect(2);
  await sql`INSERT INTO licenses (id, key, user_id, creator_id, product_id, max_ips)
    VALUES (gen_random_uuid(), ${LICENSE_KEY}, ${userId}, ${userId}, ${productId}, 5)`;
  for (let i = 0; i < versionCount; i++) {
    const name = `1.${i}.0`;
    const [version] = await sql<{ id: number }[]>`
      INSERT INTO versions (product_id, version_number, title, changelog, changelog_format, published_at)
      VALUES (${productId}, ${name}, ${name}, ${`- changes in ${name}`}, 'markdown', now()) RETURNING id`;
    const files = [
      ["windows", `App-Setup-${name}.exe`, null],
      ["linux", `app_${name}_amd64.AppImage.tar.gz`, "dW50cnVzdGVkIGNvbW1lbnQ6IHNpZ25hdHVyZQ=="],
    ] as const;
    for (const [platform, fileName, signature] of files) {
      await sql`INSERT INTO artifacts (version_id, platform, arch, file_name, file_size, sha256, sha512,
          content_type, storage_key, signature)
        VALUES (${version?.id ?? 0}, ${platform}, 'x86_64', ${fileName}, 84123456, ${"0".repeat(64)},
          ${"A".repeat(86)}, 'application/octet-stream', ${`products/${productId}/${crypto.randomUUID()}`}, ${signature})`;
    }
  }
  await sql.unsafe("VACUUM ANALYZE");
  await sql.end();
}

interface Feed {
  name: string;
  path: (productId: number) => string;
}
const FEEDS: Feed[] = [
  { name: "electron latest.yml", path: (p) => `/updates/${p}/electron/latest.yml` },
  { name: "Tauri check", path: (p) => `/updates/${p}/tauri/linux/x86_64/1.0.0` },
  {
    name: "signed upgrade check",
    path: (p) => `/api/v1/products/${p}/upgrade?version=1.0.0&platform=windows`,
  },
];

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/update-feeds.ts")) return 2;
  const bench = new ReleaseBench("feeds", opts, `depot_bench_feeds_${process.pid}`);
  const { workDir, database } = bench;
  const {
    server: depot,
    productId,
    adminId,
  } = await bench.start({ LOG_LEVEL: "info", SERVE_PROCESSES: "1", DATABASE_POOL_SIZE: "10" });
  await seed(database, productId, adminId);
  const reference = await startServer({
    what: "the reference",
    cmd: [process.execPath, referenceScript],
    cwd: workDir,
    env: (port, origin) => ({
      ...process.env,
      DATABASE_URL: database.url,
      PORT: String(port),
      APP_URL: origin,
    }),
    health: "/health",
    stderr: join(workDir, "reference.err"),
  });
  const servers = { reference: reference.origin, depot: depot.origin };
  const newest = `1.${versionCount - 1}.0`;
  for (const feed of FEEDS) {
    for (const [name, origin] of Object.entries(servers)) {
      const response = await fetch(`${origin}${feed.path(productId)}`, {
        headers: { authorization: `License ${LICENSE_KEY}` },
      });
      const body = await response.text();
      if (response.status !== 200 || !body.includes(newest)) {
        throw new Error(`${name} answered ${feed.name} with ${response.status}: ${body.slice(0, 300)}`);
      }
    }
  }
  log(machineLine());
  const results: { round: number; feed: string; server: string; result: WrkResult }[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const feed of FEEDS) {
      const order = round % 2 === 1 ? ["reference", "depot"] : ["depot", "reference"];
      for (const server of order) {
        const url = `${servers[server as keyof typeof servers]}${feed.path(productId)}`;
        const headers = { authorization: `License ${LICENSE_KEY}` };
        if (warmup > 0) await wrk({ url, connections, duration: warmup, headers });
        const result = await wrk({ url, connections, duration, headers });
        // A timeout is the machine's (reported with the run); an error answer is a broken benchmark.
        if (result.errors.includes("Non-2xx")) {
          const stderr = await textOf(join(workDir, server === "depot" ? "depot.err" : "reference.err"));
          throw new Error(`${server} ${feed.name}: ${result.errors}; its stderr:\n${stderr.slice(-2000)}`);
        }
        results.push({ round, feed: feed.name, server, result });
        log(
          `round ${round} ${feed.name} ${server}: ${Math.round(result.rps)} req/s, p50 ${result.p50}, p99 ${result.p99}, wrk ${(result.wrkShare * 100).toFixed(0)} % of the CPU${result.errors ? ` (${result.errors})` : ""}`,
        );
      }
    }
  }
  console.log("| round | feed | reference req/s (p50, p99) | depot req/s (p50, p99) | depot ÷ reference |");
  console.log("|---|---|---|---|---:|");
  for (let round = 1; round <= rounds; round++) {
    for (const feed of FEEDS) {
      const of = (server: string) =>
        results.find((r) => r.round === round && r.feed === feed.name && r.server === server)
          ?.result as WrkResult;
      const [ref, dep] = [of("reference"), of("depot")];
      const cell = (r: WrkResult) => `${Math.round(r.rps).toLocaleString("en")} (${r.p50}, ${r.p99})`;
      console.log(
        `| ${round} | ${feed.name} | ${cell(ref)} | ${cell(dep)} | ${(dep.rps / ref.rps).toFixed(2)} |`,
      );
    }
  }
  return 0;
}

await runMain(main);
