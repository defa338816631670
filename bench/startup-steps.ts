// Where a warm start of the embedded database goes, step by step (bench/README.md, "First start").
// Compiled as the binary is, since loading bytecode from the executable is one of the steps:
//
//   bun build --compile --bytecode --format esm --outfile /tmp/depot-steps bench/startup-steps.ts
//   /tmp/depot-steps DATA_DIR      # a DATA_DIR an earlier `depot serve` created (a warm start)
//
// Takes the steps of `depot serve`'s start in its order (src/cli/serve.ts, src/runtime.ts) with the
// wall and CPU time (all threads) of each: Bun's start with the loading of every module, PGlite's
// WASM compile, opening the database, the migrations check, the signing keys, pg-boss, the app, the
// listener and the first GET /api/health (through app.handle: a client in this process would add
// its own first-request costs).
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { openEmbedded, pgliteAssets } from "../src/db/client.ts";
import { createLogger } from "../src/log.ts";
import { wire } from "../src/runtime.ts";

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

async function main(dataDir: string) {
  const rows: [string, number, number][] = [
    ["Bun's start and every module loaded", performance.now(), cpuMs(process.cpuUsage())],
  ];
  let wall = performance.now();
  let cpu = process.cpuUsage();
  const step = (name: string) => {
    rows.push([name, performance.now() - wall, cpuMs(process.cpuUsage(cpu))]);
    wall = performance.now();
    cpu = process.cpuUsage();
  };
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
  const log = createLogger("warn");
  await pgliteAssets();
  step("reading and compiling PGlite's WASM");
  const database = await openEmbedded(dataDir, log);
  step("opening the database (PGlite.create)");
  await database.ping();
  step("the first query");
  const runtime = await wire(config, log, database);
  step("the migrations check (wire)");
  await runtime.signing.load();
  step("the signing keys");
  await runtime.jobs.start(runtime, { workers: true });
  step("pg-boss and depot's queues");
  const app = buildApp(runtime);
  step("building the app");
  const { server } = app.listen({ port: 0, hostname: "127.0.0.1" });
  step("listening");
  const answer = await app.handle(new Request(`http://127.0.0.1:${server?.port}/api/health`));
  if (answer.status !== 200) throw new Error(`GET /api/health answered ${answer.status}`);
  step("the first GET /api/health");
  server?.stop(true);
  await runtime.close();

  const total = rows.reduce((sum, [, , ms]) => sum + ms, 0);
  console.log("| step | wall | CPU | share of CPU |\n|---|---:|---:|---:|");
  for (const [name, ms, cpuTime] of rows) {
    console.log(
      `| ${name} | ${ms.toFixed(0)} ms | ${cpuTime.toFixed(0)} ms | ${((100 * cpuTime) / total).toFixed(0)} % |`,
    );
  }
  console.log(`| total | | ${total.toFixed(0)} ms | |`);
}

const dataDir = process.argv[2];
if (!dataDir) {
  console.error("usage: depot-steps DATA_DIR   (a data directory an earlier `depot serve` created)");
  process.exit(2);
}
await main(dataDir);
process.exit(0);
