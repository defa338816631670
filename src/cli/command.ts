import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { createLogger } from "../log.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { toId } from "../validation/ids.ts";
import { closestName } from "./did-you-mean.ts";

export type OptionSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }>;

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** Usage lines shown by `depot <command> --help`. */
  readonly usage: string;
  /** More for `depot <command> --help`: what an option accepts when the usage line cannot say it. */
  readonly details?: string;
  readonly options: OptionSpec;
  /**
   * A client of a depot server (over HTTP): main hands it the defaults instead of reading the
   * server's environment, so a PORT or DATABASE_URL meant for a server never stops a download.
   */
  readonly client?: boolean;
  /** The name of the command's one positional argument (`depot backup FILE`), if it takes one. */
  readonly positional?: string;
  /** It takes several (`depot publish FILE…`): the positional's value is then every one, in order. */
  readonly manyPositionals?: boolean;
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

/**
 * Backup and restore handle the embedded database and release files on local disk only; with
 * DATABASE_URL or STORAGE_URL set they refuse, each saying what to use instead.
 */
export function requireEmbeddedStorage(config: Config, instead: { database: string; storage: string }) {
  if (config.databaseUrl !== null) throw new UsageError(`DATABASE_URL is set: ${instead.database}`, false);
  if (config.objectStorage !== null) throw new UsageError(`STORAGE_URL is set: ${instead.storage}`, false);
}

export function parseCommandArgs(command: Command, argv: string[]) {
  const args = joinDashedValues(command.options, argv);
  const options: OptionSpec = { ...command.options, help: { type: "boolean", short: "h" } };
  refuseUnknownOptions(options, args);
  try {
    const { values, positionals } = parseArgs({
      args,
      options,
      strict: true,
      allowPositionals: command.positional !== undefined,
    });
    const parsed = values as Record<string, string | boolean | string[] | undefined>;
    if (command.positional === undefined) return parsed;
    if (command.manyPositionals) return { ...parsed, [command.positional]: positionals };
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    return { ...parsed, [command.positional]: positionals[0] };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
}

/**
 * `unknown option --versoin (did you mean --version?)`: parseArgs' own message for it quotes the
 * option with an unbalanced quote and advises on `--`, which is no help for a typo. The options are
 * tokenized leniently first, so every unknown one is found here, short or long, `--name=value` too.
 */
function refuseUnknownOptions(options: OptionSpec, args: string[]) {
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  for (const token of tokens) {
    if (token.kind !== "option" || Object.hasOwn(options, token.name)) continue;
    const near = token.rawName.startsWith("--") ? closestName(token.name, Object.keys(options)) : null;
    throw new UsageError(`unknown option ${token.rawName}${near ? ` (did you mean --${near}?)` : ""}`);
  }
}

/**
 * `--changelog "- fixed a crash"`: node's parseArgs refuses a value that starts with a dash as
 * ambiguous, yet a Markdown list does. A string option followed by anything that is not one of the
 * command's options takes it as its value (`--changelog=- fixed a crash`).
 */
function joinDashedValues(options: OptionSpec, argv: string[]): string[] {
  const known = new Set(["--help", "-h"]);
  for (const [name, spec] of Object.entries(options)) {
    known.add(`--${name}`);
    if (spec.short) known.add(`-${spec.short}`);
  }
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith("--") ? arg.slice(2) : null;
    if (
      name &&
      options[name]?.type === "string" &&
      next?.startsWith("-") &&
      !known.has(next.split("=")[0] ?? next)
    ) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** Writes the result of a creating command: one JSON object with --json, readable lines otherwise. */
export function printResult(json: boolean, result: Record<string, unknown>, human: string) {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}

/** The command's positional argument; `label` is how its usage line names it (`FILE`). */
export function requirePositional(values: Record<string, unknown>, name: string, label: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`${label} is required`);
  return value;
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value.trim() === "") throw new UsageError(`--${name} is required`);
  return value;
}

/** `--name ID` as a database id (a positive integer); usage error when it is missing or not one. */
export function requireId(values: Record<string, unknown>, name: string): number {
  const id = toId(requireString(values, name));
  if (id === null)
    throw new UsageError(`--${name} must be an id (a positive whole number), got "${values[name]}"`);
  return id;
}

/** Like requireId, but null when the option is absent. */
export function optionalId(values: Record<string, unknown>, name: string): number | null {
  return values[name] === undefined ? null : requireId(values, name);
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
