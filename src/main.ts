#!/usr/bin/env -S bun --max-http-header-size=65536
import pkg from "../package.json" with { type: "json" };
import { BackupFailed } from "./backup/errors.ts";
import { apiKeyCreateCommand } from "./cli/api-key-create.ts";
import { backupCommand } from "./cli/backup.ts";
import { type Command, parseCommandArgs, UsageError } from "./cli/command.ts";
import { demoSeedCommand } from "./cli/demo-seed.ts";
import { downloadCommand } from "./cli/download.ts";
import { healthcheckCommand } from "./cli/healthcheck.ts";
import { keysListCommand, keysRotateCommand } from "./cli/keys.ts";
import { loginCommand, logoutCommand } from "./cli/login.ts";
import { migrateCommand } from "./cli/migrate.ts";
import { productCreateCommand } from "./cli/product-create.ts";
import { publishCommand } from "./cli/publish.ts";
import { releaseCommand } from "./cli/release.ts";
import { rolloutCommand, unyankCommand, yankCommand } from "./cli/release-state.ts";
import { restoreCommand } from "./cli/restore.ts";
import { serveCommand } from "./cli/serve.ts";
import { setupLinkCommand } from "./cli/setup-link.ts";
import { tokenCreateCommand } from "./cli/token-create.ts";
import { userCreateCommand } from "./cli/user-create.ts";
import { userPasswordCommand } from "./cli/user-password.ts";
import { versionsCommand } from "./cli/versions.ts";
import { workerCommand } from "./cli/worker.ts";
import { ClientFailure } from "./cli-client/failures.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { DataDirInUse } from "./db/embedded-lock.ts";
import { NewerDatabase } from "./db/migrate.ts";
import { AppError, Invalid } from "./errors.ts";

const commands: Command[] = [
  serveCommand,
  workerCommand,
  migrateCommand,
  userCreateCommand,
  userPasswordCommand,
  tokenCreateCommand,
  apiKeyCreateCommand,
  productCreateCommand,
  setupLinkCommand,
  demoSeedCommand,
  keysRotateCommand,
  keysListCommand,
  backupCommand,
  restoreCommand,
  healthcheckCommand,
  loginCommand,
  logoutCommand,
  publishCommand,
  releaseCommand,
  rolloutCommand,
  yankCommand,
  unyankCommand,
  versionsCommand,
  downloadCommand,
];

/** A usage line longer than this gets its summary on the next line rather than widening every row. */
const USAGE_COLUMN_MAX = 90;

function help(): string {
  const width = Math.max(...commands.map((c) => c.usage.length).filter((n) => n <= USAGE_COLUMN_MAX));
  const row = (c: Command) =>
    c.usage.length <= width
      ? `  ${c.usage.padEnd(width)}  ${c.summary}`
      : `  ${c.usage}\n  ${" ".repeat(width)}  ${c.summary}`;
  return [
    `depot ${pkg.version}: publish releases, hand out license keys, validate them and serve downloads.`,
    "",
    "Usage:",
    ...commands.map(row),
    "  depot --help | --version | <command> --help",
    "",
    "Configuration comes from the environment (PORT, DATABASE_URL, DATA_DIR, ...); see docs/reference/configuration.md.",
    "publish, release, rollout, yank, unyank, versions and download are clients of a depot server: --server or DEPOT_URL, --token or DEPOT_TOKEN,\nor what `depot login` stored.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [first] = argv;
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(`${help()}\n`);
    return 0;
  }
  if (first === "--version" || first === "-v") {
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  // `depot` alone, or `depot --no-workers`, serves.
  const named = first !== undefined && !first.startsWith("-");
  const command = named ? commands.find((c) => c.name === first) : serveCommand;
  if (!command) {
    process.stderr.write(`depot: unknown command "${first}"\n\n${help()}\n`);
    return 2;
  }
  try {
    const values = parseCommandArgs(command, named ? argv.slice(1) : argv);
    if (values.help) {
      const details = command.details ? `\n${command.details}` : "";
      process.stdout.write(`usage: ${command.usage}\n${command.summary}${details}\n`);
      return 0;
    }
    return await command.run(command.client ? loadConfig({}) : loadConfig(), values);
  } catch (error) {
    return report(command, error);
  }
}

function report(command: Command, error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`depot: invalid configuration: ${error.message}\n`);
    return 2;
  }
  if (error instanceof NewerDatabase) {
    process.stderr.write(`depot ${command.name}: ${error.message}\n`);
    return 2;
  }
  if (error instanceof UsageError) {
    const usage = error.withUsage ? `usage: ${command.usage}\n` : "";
    process.stderr.write(`depot ${command.name}: ${error.message}\n${usage}`);
    return 2;
  }
  if (error instanceof ClientFailure) {
    process.stderr.write(`depot ${command.name}: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof Invalid) {
    const lines = Object.values(error.errors).flat();
    process.stderr.write(`depot ${command.name}: ${lines.join(" ")}\n`);
    return 1;
  }
  if (error instanceof DataDirInUse || error instanceof AppError || error instanceof BackupFailed) {
    process.stderr.write(`depot ${command.name}: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(
    `depot ${command.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

process.exit(await main(process.argv.slice(2)));
