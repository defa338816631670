import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { createLogger } from "../log.ts";
import { openRuntime, type Runtime } from "../runtime.ts";

export type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Usage lines shown by `depot <command> --help`. */
  readonly usage: string;
  /** More for `depot <command> --help`: what an option accepts when the usage line cannot say it. */
  readonly details?: string;
  readonly options: OptionSpec;
  /** Returns the process exit code. */
  run(config: Config, values: Record<string, string | boolean | string[] | undefined>): Promise<number>;
}

/**
 * Thrown for bad command-line input; main prints it and exits 2, followed by the command's usage
 * unless `withUsage` is false (the options are well formed but cannot work in this configuration).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly withUsage = true,
  ) {
    super(message);
  }
}

export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    });
    return values as Record<string, string | boolean | string[] | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Writes the result of a creating command: one JSON object with --json, readable lines otherwise. */
export function printResult(json: boolean, result: Record<string, unknown>, human: string) {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value;
}

/** Runs `fn` with the database open, logging to stderr so stdout carries only the command's result. */
export async function withRuntime<T>(config: Config, fn: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await openRuntime(
    config,
    createLogger(config.logLevel, (line) => process.stderr.write(`${line}\n`)),
  );
  try {
    return await fn(runtime);
  } finally {
    await runtime.close();
  }
}
