// Start-up and binary size of the compiled depot (bench/README.md: "Startup and binary size", "First start").
//
//   bun run build && bun bench/startup.ts
//   bun bench/startup.ts dist/depot /tmp/depot-before     # several builds, measured in the same run
//   bun bench/startup.ts --rounds 7                       # rounds of one cold + WARM_PER_ROUND warm starts
//
// Measures, against each binary given (dist/depot by default; it builds nothing itself):
// - binary size;
// - `depot --version` (process start, no database);
// - cold start: an empty directory, no DATABASE_URL, from spawning `depot serve` until
//   GET /api/health answers 200 (the embedded database's creation, app.key, everything);
// - warm start: the same, in the directory the round's cold start created and stopped;
// - for each start, the CPU time of the whole process tree until healthy (children it has waited for
//   included) and the peak resident memory of the tree, its processes' VmRSS summed every 20 ms;
// - shutdown: from SIGTERM until the process exits (must exit 0).
// The rounds interleave the builds (cold, warm, warm of one, then of the next) so that the load of a
// shared machine falls on each alike; cold/warm is taken within each round, then its median given.
// Each server gets a free port and its own temporary directory; both are gone when this exits,
// and no depot process is left running, whether the run succeeds, fails or is interrupted.
import { parseArgs } from "node:util";
import { builtBinary, depotBinary, depotEnv } from "./lib/depot.ts";
import { cpuSummary, loadAverage, platform } from "./lib/machine.ts";
import { removeDir, runMain, stop, tempDir, track, untrack, waitUntilUp } from "./lib/processes.ts";
import { memoryMiB, sampleTreeMemory, treeCpuSeconds } from "./lib/procfs.ts";
import { freePort, log, median, wholeNumber } from "./lib.ts";

const WARM_PER_ROUND = 2;
const VERSION_RUNS = 5;
const POLL_MS = 5;
const MEMORY_SAMPLE_MS = 20;
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 30_000;

const { values: options, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { rounds: { type: "string", default: "3" } },
  allowPositionals: true,
});
const ROUNDS = wholeNumber("rounds", options.rounds, 1);
const binaries = (positionals.length > 0 ? positionals : [undefined]).map((path) => depotBinary(path));

/** Environment for the binary: no depot setting but where to listen (the defaults are measured). */
const listenEnv = (port: number) => depotEnv({ PORT: String(port), HOST: "127.0.0.1" });

interface Start {
  startMs: number;
  /** CPU seconds of the process tree from spawn until healthy. */
  cpuS: number;
  /** Largest sampled sum of the tree's VmRSS from spawn until healthy. */
  peakTreeMiB: number;
  /** The server's own VmRSS when first healthy. */
  rssMiB: number | null;
  stopMs: number;
}

/** Starts `binary serve` in `cwd`, waits for /api/health → 200, then stops it with SIGTERM. */
async function startAndStop(binary: string, cwd: string): Promise<Start> {
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
  const memory = sampleTreeMemory(proc.pid, MEMORY_SAMPLE_MS);
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
    const cpuS = treeCpuSeconds(proc.pid);
    const { peakMiB } = memory.stop();
    const rssMiB = memoryMiB(proc.pid, "VmRSS");

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
    return { startMs, cpuS, peakTreeMiB: Math.max(peakMiB, rssMiB ?? 0), rssMiB, stopMs };
  } finally {
    memory.stop();
    await stop(proc, "SIGKILL");
  }
}

async function versionMs(binary: string, cwd: string): Promise<number> {
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

interface Runs {
  binary: string;
  size: number;
  version: number[];
  cold: Start[];
  warm: Start[];
  /** Per round: its cold start over the median of its warm starts, by wall time and by CPU time. */
  ratios: { wall: number; cpu: number }[];
}

function row(label: string, values: number[], unit = "ms", digits = 0): string {
  const f = (n: number) => `${n.toFixed(digits)}${unit ? ` ${unit}` : ""}`;
  return `| ${label} | ${values.length} | ${f(Math.min(...values))} | ${f(median(values))} | ${f(Math.max(...values))} |`;
}

function report(runs: Runs): string[] {
  const of = (starts: Start[], pick: (s: Start) => number | null) =>
    starts.map(pick).filter((n): n is number => n !== null);
  return [
    "",
    `Binary: ${runs.binary}, ${(runs.size / 1024 / 1024).toFixed(1)} MiB (${runs.size} bytes)`,
    "",
    "| measurement | runs | min | median | max |",
    "|---|---:|---:|---:|---:|",
    row("`depot --version` (process start, no database)", runs.version),
    row(
      "cold start → /api/health 200 (empty directory)",
      of(runs.cold, (s) => s.startMs),
    ),
    row(
      "warm start → /api/health 200 (initialised directory)",
      of(runs.warm, (s) => s.startMs),
    ),
    row(
      "**cold / warm, wall time** (per round)",
      runs.ratios.map((r) => r.wall),
      "",
      2,
    ),
    row(
      "CPU of the process tree until healthy, cold",
      of(runs.cold, (s) => s.cpuS * 1000),
    ),
    row(
      "CPU of the process tree until healthy, warm",
      of(runs.warm, (s) => s.cpuS * 1000),
    ),
    row(
      "cold / warm, CPU time (per round)",
      runs.ratios.map((r) => r.cpu),
      "",
      2,
    ),
    row(
      "**peak RSS of the process tree, cold** (sampled)",
      of(runs.cold, (s) => s.peakTreeMiB),
      "MiB",
      1,
    ),
    row(
      "peak RSS of the process tree, warm (sampled)",
      of(runs.warm, (s) => s.peakTreeMiB),
      "MiB",
      1,
    ),
    row(
      "RSS when first healthy, cold",
      of(runs.cold, (s) => s.rssMiB),
      "MiB",
      1,
    ),
    row(
      "RSS when first healthy, warm",
      of(runs.warm, (s) => s.rssMiB),
      "MiB",
      1,
    ),
    row(
      "SIGTERM → exit 0 (idle server)",
      of([...runs.cold, ...runs.warm], (s) => s.stopMs),
    ),
  ];
}

async function main(): Promise<number> {
  const all: Runs[] = [];
  for (const binary of binaries) {
    const stat = builtBinary(binary, "bun run build && bun bench/startup.ts");
    if (!stat) return 1;
    all.push({ binary, size: stat.size, version: [], cold: [], warm: [], ratios: [] });
  }
  const loadBefore = loadAverage();

  const scratch = tempDir("depot-bench-");
  for (let i = 0; i < VERSION_RUNS; i++) {
    for (const runs of all) runs.version.push(await versionMs(runs.binary, scratch));
  }
  removeDir(scratch);

  for (let round = 1; round <= ROUNDS; round++) {
    for (const runs of all) {
      const dir = tempDir("depot-bench-");
      const cold = await startAndStop(runs.binary, dir);
      // Warm starts reuse the directory this round's cold start initialised.
      const warm: Start[] = [];
      for (let i = 0; i < WARM_PER_ROUND; i++) warm.push(await startAndStop(runs.binary, dir));
      removeDir(dir);
      runs.cold.push(cold);
      runs.warm.push(...warm);
      runs.ratios.push({
        wall: cold.startMs / median(warm.map((w) => w.startMs)),
        cpu: cold.cpuS / median(warm.map((w) => w.cpuS)),
      });
      const ms = (s: Start) =>
        `${s.startMs.toFixed(0)} ms (${(s.cpuS * 1000).toFixed(0)} ms CPU, ${s.peakTreeMiB.toFixed(0)} MiB)`;
      log(`round ${round}/${ROUNDS} ${runs.binary}: cold ${ms(cold)}, warm ${warm.map(ms).join(", ")}`);
    }
  }

  const lines = [
    "",
    `depot startup — Bun ${Bun.version}, ${cpuSummary()}, ${platform()}`,
    `${ROUNDS} rounds of 1 cold + ${WARM_PER_ROUND} warm starts per binary, interleaved; load average before: ${loadBefore}, after: ${loadAverage()}`,
    ...all.flatMap(report),
    "",
    `Health polled every ${POLL_MS} ms; times include process spawn; memory sampled every ${MEMORY_SAMPLE_MS} ms.`,
  ];
  console.log(lines.join("\n"));
  return 0;
}

// The errors say what happened, with depot's output; a stack would only add this script's lines.
await runMain(main, { stack: false });
