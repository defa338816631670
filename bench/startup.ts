// Startup and binary size of the compiled depot (bench/README.md, issue 2).
//
//   bun run build && bun bench/startup.ts
//
// Measures, against dist/depot (it builds nothing itself):
// - binary size;
// - `depot --version` (process start, no database);
// - cold start: an empty directory, no DATABASE_URL, from spawning `depot serve` until
//   GET /api/health answers 200 (includes PGlite initdb, migrations and app.key creation);
// - warm start: the same, in a directory a previous run already initialised and stopped;
// - shutdown: from SIGTERM until the process exits (must exit 0).
// Each server gets a free port and its own temporary directory; both are gone when this exits,
// and no depot process is left running, whether the run succeeds, fails or is interrupted.
import { builtBinary, depotBinary, depotEnv } from "./lib/depot.ts";
import { cpuSummary, platform } from "./lib/machine.ts";
import { removeDir, runMain, stop, tempDir, track, untrack, waitUntilUp } from "./lib/processes.ts";
import { memoryMiB } from "./lib/procfs.ts";
import { freePort, median } from "./lib.ts";

const COLD_RUNS = 3;
const WARM_RUNS = 5;
const VERSION_RUNS = 5;
const POLL_MS = 5;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

// Another build can be compared by passing its path: `bun bench/startup.ts /tmp/depot-other`.
const binary = depotBinary(process.argv[2]);

/** Environment for the binary: no depot setting but where to listen (the defaults are measured). */
const listenEnv = (port: number) => depotEnv({ PORT: String(port), HOST: "127.0.0.1" });

interface StartStop {
  startMs: number;
  stopMs: number;
  rssMiB: number | null;
}

/** Starts `depot serve` in `cwd`, waits for /api/health → 200, then stops it with SIGTERM. */
async function startAndStop(cwd: string): Promise<StartStop> {
  const port = await freePort();
  let output = "";
  const t0 = performance.now();
  const proc = track(
    Bun.spawn([binary, "serve"], {
      cwd,
      env: listenEnv(port),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    }),
  );
  // Drain both pipes so a chatty server never blocks on a full pipe; keep the text for errors.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)]);
  const describe = async () => {
    // All of it once the process is gone; what there is so far while it still runs.
    if (proc.exitCode !== null || proc.signalCode !== null) await drained;
    return `--- depot output ---\n${output.trim()}\n---`;
  };

  try {
    await waitUntilUp(`http://127.0.0.1:${port}/api/health`, proc, {
      what: "depot serve",
      pollMs: POLL_MS,
      timeoutMs: START_TIMEOUT_MS,
      detail: describe,
    });
    const startMs = performance.now() - t0;
    const rss = memoryMiB(proc.pid, "VmRSS");

    const t1 = performance.now();
    const exited = await stop(proc, "SIGTERM", STOP_TIMEOUT_MS);
    const stopMs = performance.now() - t1;
    if (exited === "timeout") {
      throw new Error(
        `depot serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM:\n${await describe()}`,
      );
    }
    await drained;
    if (exited !== 0)
      throw new Error(`depot serve exited ${exited} after SIGTERM, expected 0:\n${await describe()}`);
    return { startMs, stopMs, rssMiB: rss };
  } finally {
    await stop(proc, "SIGKILL");
  }
}

async function versionMs(cwd: string): Promise<number> {
  const t0 = performance.now();
  const proc = track(
    Bun.spawn([binary, "--version"], { cwd, env: listenEnv(0), stdout: "pipe", stderr: "pipe" }),
  );
  const code = await proc.exited;
  untrack(proc);
  const ms = performance.now() - t0;
  if (code !== 0)
    throw new Error(`depot --version exited ${code}: ${await new Response(proc.stderr).text()}`);
  return ms;
}

function row(label: string, values: number[], unit = "ms", digits = 0): string {
  const f = (n: number) => `${n.toFixed(digits)} ${unit}`;
  return `| ${label} | ${values.length} | ${f(Math.min(...values))} | ${f(median(values))} | ${f(Math.max(...values))} |`;
}

async function main(): Promise<number> {
  const stat = builtBinary(binary, "bun run build && bun bench/startup.ts");
  if (!stat) return 1;
  const size = stat.size;

  const cold: StartStop[] = [];
  const warm: StartStop[] = [];
  const version: number[] = [];

  const scratch = tempDir("depot-bench-");
  for (let i = 0; i < VERSION_RUNS; i++) version.push(await versionMs(scratch));
  removeDir(scratch);

  let lastCold = "";
  for (let i = 0; i < COLD_RUNS; i++) {
    if (lastCold) removeDir(lastCold);
    lastCold = tempDir("depot-bench-");
    const run = await startAndStop(lastCold);
    cold.push(run);
    console.error(
      `cold ${i + 1}/${COLD_RUNS}: healthy after ${run.startMs.toFixed(0)} ms, stopped in ${run.stopMs.toFixed(0)} ms`,
    );
  }
  // Warm starts reuse the directory the last cold start initialised.
  for (let i = 0; i < WARM_RUNS; i++) {
    const run = await startAndStop(lastCold);
    warm.push(run);
    console.error(
      `warm ${i + 1}/${WARM_RUNS}: healthy after ${run.startMs.toFixed(0)} ms, stopped in ${run.stopMs.toFixed(0)} ms`,
    );
  }
  removeDir(lastCold);

  const lines = [
    "",
    `depot startup — Bun ${Bun.version}, ${cpuSummary()}, ${platform()}`,
    "",
    `Binary: ${binary}, ${(size / 1024 / 1024).toFixed(1)} MiB (${size} bytes)`,
    "",
    "| measurement | runs | min | median | max |",
    "|---|---:|---:|---:|---:|",
    row("`depot --version` (process start, no database)", version),
    row(
      "cold start → /api/health 200 (empty dir: initdb + migrations)",
      cold.map((r) => r.startMs),
    ),
    row(
      "warm start → /api/health 200 (initialised dir)",
      warm.map((r) => r.startMs),
    ),
    row(
      "SIGTERM → exit 0 (idle server)",
      [...cold, ...warm].map((r) => r.stopMs),
    ),
  ];
  const rss = (runs: StartStop[]) => runs.map((r) => r.rssMiB).filter((n): n is number => n !== null);
  if (rss(cold).length > 0) lines.push(row("RSS when first healthy, cold", rss(cold), "MiB", 1));
  if (rss(warm).length > 0) lines.push(row("RSS when first healthy, warm", rss(warm), "MiB", 1));
  lines.push("", `Health polled every ${POLL_MS} ms; times include process spawn.`);
  console.log(lines.join("\n"));
  return 0;
}

// The errors say what happened, with depot's output; a stack would only add this script's lines.
await runMain(main, { stack: false });
