// Update feeds under load against a bare Bun.serve + postgres.js reference (bench/README.md, issue 25).
//
//   npm run build && bun bench/feeds.ts [--rounds 2] [--duration 15] [--warmup 3] [--connections 64]
//                                       [--pg postgres://root@127.0.0.1:5432] [--binary dist/depot]
//
// 1. A new database `depot_bench_feeds` (dropped at exit), migrated by `depot migrate`; an admin, a
//    product, 100 customers with a license each (through the API, as a shop makes them), and 20
//    published stable versions 1.0.0 … 1.19.0, each with a Windows, a macOS and a Linux file (rows
//    written with SQL: the feeds read rows, not bytes).
// 2. Two polls, each request with a random customer's `Authorization: License <key>` and a random
//    `x-user-staging-id`, as electron-updater and Tauri send them:
//    electron  GET /updates/{p}/electron/latest.yml
//    tauri     GET /updates/{p}/tauri/linux/x86_64/1.0.0
// 3. Each round runs the reference (bench/feeds-reference.ts: one query for the newest version row and
//    its file, the same answer, no license or rollout) and then `dist/depot serve --no-workers`, each
//    alone, autocannon with --connections for --warmup then --duration seconds per poll.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  BENCH_ADMIN,
  builtBinary,
  createProduct,
  createToken,
  createUser,
  depotBinary,
  depotCli,
  depotEnv,
  startDepot,
} from "./lib/depot.ts";
import { autocannon, type LoadRequest, type LoadResult } from "./lib/load.ts";
import { cpuSummary, memorySummary, platform } from "./lib/machine.ts";
import { BenchDatabase } from "./lib/postgres.ts";
import { runMain, type Server, startServer, stop, tempDir } from "./lib/processes.ts";
import { log, median, wholeNumber } from "./lib.ts";

const CUSTOMERS = 100;
const VERSIONS = 20;
const TARGET_RATIO = 0.8;
const TARGET_P99_MS = 10;

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "2" },
    duration: { type: "string", default: "15" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    pg: { type: "string", default: "postgres://root@127.0.0.1:5432" },
    binary: { type: "string" },
  },
});
const rounds = wholeNumber("--rounds", options.rounds, 1);
const duration = wholeNumber("--duration", options.duration, 1);
const warmup = wholeNumber("--warmup", options.warmup, 0);
const connections = wholeNumber("--connections", options.connections, 1);
const binary = depotBinary(options.binary);
const referenceScript = fileURLToPath(new URL("./feeds-reference.ts", import.meta.url));

type Poll = "electron" | "tauri";
const POLLS: Poll[] = ["electron", "tauri"];

async function main(): Promise<number> {
  if (!builtBinary(binary, "npm run build && bun bench/feeds.ts")) return 2;
  const database = BenchDatabase.onServer("depot_bench_feeds", options.pg);
  await database.recreate();
  database.dropAtExit();
  const workDir = tempDir("depot-bench-feeds-");
  const env = depotEnv({ DATABASE_URL: database.url, DATA_DIR: join(workDir, "data") });
  const depot = depotCli(binary, env, workDir);
  await depot(["migrate"]);
  const adminId = await createUser(depot, BENCH_ADMIN);
  const token = await createToken(depot, adminId);
  const apiKey = (JSON.parse(await depot(["api-key:create", "--name", "bench", "--json"])) as { key: string })
    .key;

  const startDepotServer = () =>
    startDepot({
      binary,
      cwd: workDir,
      env,
      stdout: join(workDir, "depot.log"),
      stderr: join(workDir, "depot.err"),
    });
  let server = await startDepotServer();
  const productId = await createProduct(server.origin, token, adminId);
  const keys = await createLicenses(server.origin, token, apiKey, productId).catch(async (error) => {
    log(`depot's last errors:\n${await lastErrors(join(workDir, "depot.log"))}`);
    throw error;
  });
  const sql = database.connect(1);
  await seedVersions(sql, productId);
  await sql`VACUUM ANALYZE`;
  await sql.end();
  await stop(server.proc);
  log(`dataset: ${CUSTOMERS} licenses, ${VERSIONS} versions × 3 files`);

  const requests = (poll: Poll): LoadRequest[] =>
    keys.map((key) => ({
      method: "GET",
      path:
        poll === "electron"
          ? `/updates/${productId}/electron/latest.yml`
          : `/updates/${productId}/tauri/linux/x86_64/1.0.0`,
      headers: { authorization: `License ${key}`, "x-user-staging-id": crypto.randomUUID() },
    }));

  const results: Record<string, Record<Poll, LoadResult[]>> = {
    reference: { electron: [], tauri: [] },
    depot: { electron: [], tauri: [] },
  };
  for (let round = 1; round <= rounds; round++) {
    for (const name of ["reference", "depot"] as const) {
      server =
        name === "depot"
          ? await startDepotServer()
          : await startServer({
              what: "feeds reference",
              cmd: ["bun", referenceScript],
              env: (port, origin) => ({
                ...process.env,
                DATABASE_URL: database.url,
                PORT: String(port),
                APP_URL: origin,
              }),
              health: "/health",
            });
      for (const poll of POLLS) {
        await expectAnswer(server, poll, requests(poll)[0] as LoadRequest);
        const result = await autocannon({
          url: server.origin,
          connections,
          warmup,
          duration,
          requests: requests(poll),
          dir: workDir,
        });
        if (result.non2xx || result.errors || result.timeouts) {
          throw new Error(
            `${name} ${poll}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
          );
        }
        results[name]?.[poll].push(result);
        log(
          `round ${round} ${name} ${poll}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms`,
        );
      }
      await stop(server.proc);
    }
  }

  console.log(
    `\n${cpuSummary()}, ${memorySummary()}, ${platform()}, Bun ${Bun.version}; ${connections} connections, ${rounds} rounds of ${warmup} s + ${duration} s\n`,
  );
  console.log("| poll | reference req/s (p99) | depot req/s (p99) | depot / reference | target |");
  console.log("|---|---|---|---:|---|");
  for (const poll of POLLS) {
    const ref = results.reference?.[poll] ?? [];
    const ours = results.depot?.[poll] ?? [];
    const row = (rs: LoadResult[]) => rs.map((r) => `${Math.round(r.rps)} (${r.p99} ms)`).join(", ");
    const ratio = median(ours.map((r) => r.rps)) / median(ref.map((r) => r.rps));
    const p99 = median(ours.map((r) => r.p99));
    const met = ratio >= TARGET_RATIO && p99 < TARGET_P99_MS;
    console.log(
      `| ${poll} | ${row(ref)} | ${row(ours)} | ${ratio.toFixed(2)} | ≥ ${TARGET_RATIO} ×, p99 < ${TARGET_P99_MS} ms: ${met ? "met" : "**missed**"} |`,
    );
  }
  return 0;
}

/** One customer each, and a license of the product for each, through the admin API and the license API. */
async function createLicenses(
  origin: string,
  token: string,
  apiKey: string,
  productId: number,
): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    const user = await postJson(
      `${origin}/api/admin/users`,
      { authorization: `Bearer ${token}` },
      {
        name: `Customer ${i}`,
        email: `bench-feeds-${i}@depot.test`,
        role: "customer",
      },
    );
    const license = await postJson(
      `${origin}/api/v1/licenses`,
      { "x-api-key": apiKey },
      {
        ownerId: String((user as { data: { id: number } }).data.id),
        creatorId: "1",
        productId: String(productId),
      },
    );
    keys.push((license as { key: string }).key);
  }
  return keys;
}

async function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`POST ${url} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** VERSIONS published stable versions, each with a file for Windows, macOS and Linux. */
async function seedVersions(sql: ReturnType<BenchDatabase["connect"]>, productId: number) {
  for (let minor = 0; minor < VERSIONS; minor++) {
    const name = `1.${minor}.0`;
    const [version] = await sql<{ id: number }[]>`
      INSERT INTO versions (product_id, version_number, title, changelog, changelog_format, channel, status, published_at)
      VALUES (${productId}, ${name}, ${`Release ${name}`}, ${`- changes in ${name}`}, 'markdown', 'stable', 'published', now())
      RETURNING id`;
    const files: [string, string, string][] = [
      ["windows", "x86_64", `App-Setup-${name}.exe`],
      ["darwin", "universal", `App-${name}-mac.zip`],
      ["linux", "x86_64", `App_${name}_amd64.AppImage.tar.gz`],
    ];
    for (const [platform, arch, file] of files) {
      await sql`
        INSERT INTO artifacts (version_id, platform, arch, file_name, file_size, sha256, sha512, content_type, storage_key, signature)
        VALUES (${version?.id ?? 0}, ${platform}, ${arch}, ${file}, 104857600, ${"0".repeat(64)},
                ${Buffer.alloc(64, minor).toString("base64")}, 'application/octet-stream',
                ${`bench/${name}/${file}`}, ${`untrusted comment: signature of ${file}\nRUQ…`})`;
    }
  }
}

/** The last lines of a JSON log at `error`, to say why a set-up request failed. */
async function lastErrors(path: string): Promise<string> {
  const lines = (await Bun.file(path).text()).split("\n");
  return lines
    .filter((line) => line.includes('"level":"error"'))
    .slice(-3)
    .join("\n");
}

/** The server answers `request` as an updater expects, before it is measured. */
async function expectAnswer(server: Server, poll: Poll, request: LoadRequest) {
  const res = await fetch(`${server.origin}${request.path}`, { headers: request.headers });
  const body = await res.text();
  const newest = `1.${VERSIONS - 1}.0`;
  const ok =
    res.status === 200 &&
    (poll === "electron"
      ? body.includes(`version: ${newest}`)
      : (JSON.parse(body) as { version: string }).version === newest);
  if (!ok) throw new Error(`${server.origin}${request.path} answered ${res.status}: ${body.slice(0, 500)}`);
}

await runMain(main);
