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
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Subprocess } from "bun";
import { freePort, median } from "./lib.ts";

const COLD_RUNS = 3;
const WARM_RUNS = 5;
const VERSION_RUNS = 5;
const POLL_MS = 5;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;

// Another build can be compared by passing its path: `bun bench/startup.ts /tmp/depot-other`.
const binary = process.argv[2]
  ? resolve(process.argv[2])
  : fileURLToPath(new URL("../dist/depot", import.meta.url));

const running = new Set<Subprocess>();
const tempDirs = new Set<string>();

/** Kills every depot still running, waits for it to be gone, then removes the temporary directories. */
async function cleanup() {
  const procs = [...running];
  running.clear();
  for (const proc of procs) {
    try {
      proc.kill("SIGKILL");
    } catch {}
  }
  await Promise.all(procs.map((proc) => proc.exited));
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

/** Environment for the binary: the caller's, minus every depot setting (the defaults are measured). */
function cleanEnv(port: number): Record<string, string> {
  const env: Record<string, string> = {};
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
  ]);
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !depotSettings.has(key)) env[key] = value;
  }
  env.PORT = String(port);
  env.HOST = "127.0.0.1";
  return env;
}

function makeTempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "depot-bench-"));
  tempDirs.add(dir);
  return dir;
}

function removeTempDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

function rssMiB(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : null;
  } catch {
    return null;
  }
}

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
  const proc = Bun.spawn([binary, "serve"], {
    cwd,
    env: cleanEnv(port),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  running.add(proc);
  // Drain both pipes so a chatty server never blocks on a full pipe; keep the text for errors.
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)]);
  const describe = () => `\n--- depot output ---\n${output.trim()}\n---`;

  try {
    const url = `http://127.0.0.1:${port}/api/health`;
    let startMs = 0;
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) {
        await drained;
        throw new Error(
          `depot serve exited (${proc.exitCode ?? proc.signalCode}) before it was healthy${describe()}`,
        );
      }
      if (performance.now() - t0 > START_TIMEOUT_MS) {
        throw new Error(`depot serve was not healthy within ${START_TIMEOUT_MS} ms${describe()}`);
      }
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
        await response.arrayBuffer();
        if (response.status === 200) {
          startMs = performance.now() - t0;
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(POLL_MS);
    }
    const rss = rssMiB(proc.pid);

    const t1 = performance.now();
    proc.kill("SIGTERM");
    const exited = await Promise.race([
      proc.exited,
      Bun.sleep(STOP_TIMEOUT_MS).then(() => "timeout" as const),
    ]);
    const stopMs = performance.now() - t1;
    if (exited === "timeout")
      throw new Error(`depot serve did not exit within ${STOP_TIMEOUT_MS} ms of SIGTERM${describe()}`);
    running.delete(proc);
    await drained;
    if (exited !== 0) throw new Error(`depot serve exited ${exited} after SIGTERM, expected 0${describe()}`);
    return { startMs, stopMs, rssMiB: rss };
  } finally {
    if (running.has(proc)) {
      proc.kill("SIGKILL");
      await proc.exited;
      running.delete(proc);
    }
  }
}

async function versionMs(cwd: string): Promise<number> {
  const t0 = performance.now();
  const proc = Bun.spawn([binary, "--version"], { cwd, env: cleanEnv(0), stdout: "pipe", stderr: "pipe" });
  running.add(proc);
  const code = await proc.exited;
  running.delete(proc);
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
  let size: number;
  try {
    size = statSync(binary).size;
  } catch {
    console.error(`${binary} does not exist. Build it first:\n\n  bun run build && bun bench/startup.ts`);
    return 1;
  }

  const cold: StartStop[] = [];
  const warm: StartStop[] = [];
  const version: number[] = [];

  const scratch = makeTempDir();
  for (let i = 0; i < VERSION_RUNS; i++) version.push(await versionMs(scratch));
  removeTempDir(scratch);

  let lastCold = "";
  for (let i = 0; i < COLD_RUNS; i++) {
    if (lastCold) removeTempDir(lastCold);
    lastCold = makeTempDir();
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
  removeTempDir(lastCold);

  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const lines = [
    "",
    `depot startup — Bun ${Bun.version}, ${cpus().length} × ${cpu}, ${process.platform}-${process.arch}`,
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

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
