// The child processes and scratch directories of a bench script, and making sure that none outlives
// it: however the script ends (it returns, throws, or gets SIGINT/SIGTERM), cleanup() kills every
// process still registered here, removes every directory made here and then runs the cleanup hooks
// (dropping a database, say). A benchmark left running would skew the next one on this shared machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { freePort, log } from "../lib.ts";

const running = new Set<Subprocess>();
const dirs = new Set<string>();
const hooks: (() => Promise<void>)[] = [];

/** Registers a process that was just spawned: cleanup() kills it if it is still running then. */
export function track<P extends Subprocess>(proc: P): P {
  running.add(proc);
  return proc;
}

/** For a process that has exited. */
export function untrack(proc: Subprocess) {
  running.delete(proc);
}

/** A new directory under `parent` (the OS's temporary directory by default); cleanup() removes it. */
export function tempDir(prefix: string, parent = tmpdir()): string {
  // Absolute, as servers started elsewhere get paths inside it.
  const dir = mkdtempSync(join(resolve(parent), prefix));
  dirs.add(dir);
  return dir;
}

/** Removes a directory made by tempDir() now. */
export function removeDir(dir: string) {
  rmSync(dir, { recursive: true, force: true });
  dirs.delete(dir);
}

/** Runs `hook` during cleanup(), after the processes are gone and the directories removed. */
export function atCleanup(hook: () => Promise<void>) {
  hooks.push(hook);
}

let hooksRun: Promise<void> | null = null;

/**
 * Kills the processes, removes the directories, runs the hooks once. It may be called twice at
 * about the same time (a signal arrives, and the script ends because the signal killed what it was
 * waiting for): each call waits until the hooks are done, so that neither exits before.
 */
export async function cleanup() {
  const procs = [...running];
  running.clear();
  for (const proc of procs) {
    try {
      proc.kill("SIGKILL");
    } catch {}
  }
  await Promise.all(procs.map((proc) => proc.exited));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
  hooksRun ??= (async () => {
    for (const hook of hooks) await hook();
  })();
  await hooksRun;
}

/** Set by SIGINT or SIGTERM: the exit code is then 130, whatever the script was doing. */
let interrupted = false;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true;
    void cleanup().finally(() => process.exit(130));
  });
}

/**
 * Runs a script's `main`, cleans up and exits with its code: 1 when it throws, after printing the
 * error's stack (only its message with `stack: false`, for errors that already say all there is).
 */
export async function runMain(
  main: () => Promise<number>,
  options: { stack?: boolean } = {},
): Promise<never> {
  let code = 1;
  try {
    code = await main();
  } catch (error) {
    const stack = options.stack ?? true;
    log(error instanceof Error ? ((stack ? error.stack : undefined) ?? error.message) : String(error));
    code = 1;
  } finally {
    await cleanup();
  }
  process.exit(interrupted ? 130 : code);
}

/**
 * Runs a command to completion; returns its stdout and stderr, and the CPU seconds it used (user +
 * system, all its threads; NaN if Bun could not tell); throws with its output on a non-zero exit.
 */
export async function run(
  cmd: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
) {
  const proc = track(Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdout: "pipe", stderr: "pipe" }));
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  untrack(proc);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}:\n${(err || out).trim()}`);
  // Read once it has exited: a process gone from /proc still has its rusage here.
  const cpuTime = proc.resourceUsage()?.cpuTime.total;
  return { out, err, cpuS: cpuTime === undefined ? Number.NaN : Number(cpuTime) / 1e6 };
}

/**
 * Sends `signal` (unless the process has already exited) and waits for the exit; a process still
 * running after `timeoutMs` is killed. Returns the exit code, or "timeout" when it had to be killed.
 */
export async function stop(
  proc: Subprocess,
  signal: NodeJS.Signals = "SIGTERM",
  timeoutMs = 30_000,
): Promise<number | "timeout"> {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
  const exited = await Promise.race([proc.exited, Bun.sleep(timeoutMs).then(() => "timeout" as const)]);
  if (exited === "timeout") proc.kill("SIGKILL");
  await proc.exited;
  untrack(proc);
  return exited;
}

/**
 * Polls `url` every `pollMs` until it answers `status` (any status when null), as long as `proc` is
 * alive. Throws when the process exits first or nothing answered within `timeoutMs`; the error ends
 * with `detail()` (what the process wrote to stderr, say).
 */
export async function waitUntilUp(
  url: string,
  proc: Subprocess,
  options: {
    what: string;
    method?: "GET" | "HEAD";
    status?: number | null;
    pollMs?: number;
    timeoutMs?: number;
    detail?: () => string | Promise<string>;
  },
) {
  const { what, method = "GET", status = 200, pollMs = 50, timeoutMs = 30_000 } = options;
  const failure = async (problem: string) => {
    const detail = ((await options.detail?.()) ?? "").trim();
    return new Error(detail ? `${problem}:\n${detail}` : problem);
  };
  const t0 = performance.now();
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw await failure(`${what} exited (${proc.exitCode ?? proc.signalCode}) before ${url} answered`);
    }
    if (performance.now() - t0 > timeoutMs) {
      throw await failure(`${what}: ${url} did not answer within ${timeoutMs / 1000} s`);
    }
    try {
      const res = await fetch(url, { method, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (status === null || res.status === status) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(pollMs);
  }
}

/** The text of a file, or "" when it cannot be read (for error messages). */
export async function textOf(path: string): Promise<string> {
  return Bun.file(path)
    .text()
    .catch(() => "");
}

export interface Server {
  proc: Subprocess;
  /** http://127.0.0.1:PORT */
  origin: string;
  /** Lines the server has written to stdout so far; all of them once it has exited. */
  stdoutLines(): Promise<number>;
}

/**
 * Starts a server on a free port of 127.0.0.1 and waits until GET `health` answers 200. `env` gets
 * the port and the origin to put in the server's settings. stdout goes to the file `stdout`, or
 * without one to a pipe that is read and thrown away as it comes, as a log collector would (only the
 * lines are counted); stderr goes to the file `stderr`, quoted if the server does not come up, or
 * without one to this script's stderr.
 */
export async function startServer(options: {
  what: string;
  cmd: string[];
  cwd?: string;
  env: (port: number, origin: string) => Record<string, string | undefined>;
  health: string;
  stdout?: string;
  stderr?: string;
}): Promise<Server> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { stdout, stderr } = options;
  const proc = track(
    Bun.spawn(options.cmd, {
      cwd: options.cwd,
      env: options.env(port, origin),
      stdin: "ignore",
      stdout: stdout ? Bun.file(stdout) : "pipe",
      stderr: stderr ? Bun.file(stderr) : "inherit",
    }),
  );
  const newlines = (chunk: Uint8Array) => {
    let n = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
    return n;
  };
  let piped = 0;
  const pipe: unknown = proc.stdout;
  const drained =
    pipe instanceof ReadableStream
      ? (async () => {
          for await (const chunk of pipe as ReadableStream<Uint8Array>) piped += newlines(chunk);
        })()
      : Promise.resolve();
  const stdoutLines = async () => {
    if (stdout) return newlines(await Bun.file(stdout).bytes());
    if (proc.exitCode !== null || proc.signalCode !== null) await drained;
    return piped;
  };
  await waitUntilUp(`${origin}${options.health}`, proc, {
    what: options.what,
    detail: () => (stderr ? textOf(stderr) : ""),
  });
  return { proc, origin, stdoutLines };
}
