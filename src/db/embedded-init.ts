import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isCompiledBinary } from "../compiled.ts";

/** The argument that makes `depot` initialise an embedded database and exit (not a user command). */
export const INIT_EMBEDDED = "__init-embedded-db";

/** Whether `path` holds an initialised PGlite (PostgreSQL) data directory. */
export const isInitialised = (path: string) => existsSync(join(path, "PG_VERSION"));

/**
 * Runs PGlite's initdb for `path` in a short-lived child process. initdb leaves the process that
 * ran it at about 1 GiB of RSS for good (its WASM memory is never handed back), where a process that
 * opens an initialised directory needs about 320 MiB: a first start would otherwise need a container
 * three times the size of every later one.
 */
export async function initialiseInChild(path: string): Promise<void> {
  const child = Bun.spawn([...depotCommand(), INIT_EMBEDDED, path], {
    stdout: "ignore",
    stderr: "pipe",
    env: process.env,
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0 || !isInitialised(path)) {
    throw new Error(`initialising the embedded database in ${path} failed (exit ${code}): ${stderr.trim()}`);
  }
}

/**
 * How to start this program again: the compiled binary is its own executable; from source it is Bun
 * running src/main.ts (not `Bun.main`, which under `bun test` is the test file).
 */
function depotCommand(): string[] {
  return isCompiledBinary
    ? [process.execPath]
    : [process.execPath, fileURLToPath(new URL("../main.ts", import.meta.url))];
}
