import { expect } from "bun:test";
import { join } from "node:path";
import { unusedPort } from "./ports.ts";

const MAIN = join(import.meta.dir, "../../src/main.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment a spawned depot sees: ours minus anything that would point it at another database. */
export function cliEnv(env: Record<string, string | undefined>): Record<string, string> {
  const base: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: undefined,
    LOG_LEVEL: "warn",
    // A login stored on this machine (`depot login`) must not change what a test's client does.
    DEPOT_CONFIG_DIR: "/nonexistent/depot-tests-config",
    // One HTTP process per server on two shared cores; tests/serve-processes.test.ts runs several.
    SERVE_PROCESSES: "1",
    ...env,
  };
  return Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined));
}

/**
 * Runs `depot <args>` as its own process, the way users and scripts do (in `cwd` if given). `stdin` is
 * piped to it (`echo … | depot …`); without it stdin is empty.
 */
export async function depot(
  args: string[],
  env: Record<string, string | undefined> = {},
  cwd?: string,
  stdin?: string,
): Promise<CliResult> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], {
    env: cliEnv(env),
    cwd,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/**
 * Starts `depot serve` (or `args`, such as `serve --no-workers`) and resolves once /api/health answers
 * 200. A port taken between our pick and the server's bind is picked again, a few times. `launcher`
 * runs it through another program that execs it (`setpriv …` to take a capability away); `entry` is
 * how depot itself is started (Bun on src/main.ts unless given, such as `bin/depot.js` by its shebang).
 */
export async function startServer(
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
  args: string[] = ["serve"],
  launcher: string[] = [],
  entry: string[] = [process.execPath, MAIN],
) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOn(unusedPort(), env, timeoutMs, args, launcher, entry);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === 3) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startServerOn(
  port: number,
  env: Record<string, string | undefined>,
  timeoutMs: number,
  args: string[],
  launcher: string[],
  entry: string[],
) {
  const proc = Bun.spawn([...launcher, ...entry, ...args], {
    env: cliEnv({ PORT: String(port), HOST: "127.0.0.1", ...env }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) {
      const stderr = await new Response(proc.stderr).text();
      const message = `depot serve exited with ${proc.exitCode}: ${stderr}`;
      throw stderr.includes(`PORT: 127.0.0.1:${port} is already in use`)
        ? new PortTaken(message)
        : new Error(message);
    }
    const ok = await fetch(`${url}/api/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return { proc, url, port };
    await Bun.sleep(100);
  }
  proc.kill("SIGKILL");
  throw new Error("depot serve did not become healthy in time");
}

/** Starts a long-running `depot <args>` (such as `worker`) as its own process; the caller stops it. */
export function spawnDepot(args: string[], env: Record<string, string | undefined>) {
  return Bun.spawn([process.execPath, MAIN, ...args], { env: cliEnv(env), stdout: "pipe", stderr: "pipe" });
}

/** stderr split into lines, without the final newline: a one-line failure is exactly one element. */
/** The JSON a `--json` run that exited 0 printed (whatever it said on stderr along the way). */
export function jsonOf(result: CliResult) {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  return JSON.parse(result.stdout);
}

export const stderrLines = (result: CliResult) => result.stderr.replace(/\n$/, "").split("\n");

/** A stack frame as Error.stack prints it: what a friendly failure must not show. */
export const STACK_FRAME = /^\s+at /m;
