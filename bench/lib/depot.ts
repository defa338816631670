// Running depot from a bench script: which binary, its environment, its CLI and `depot serve`.
import { type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { log } from "../lib.ts";
import { run, type Server, startServer } from "./processes.ts";

/** `path` made absolute, or by default dist/depot of this checkout (`bun run build` writes it). */
export function depotBinary(path?: string): string {
  return path ? resolve(path) : fileURLToPath(new URL("../../dist/depot", import.meta.url));
}

/**
 * The binary's stat, or null after saying how to build it: `command` is how to build it and run this
 * script. The scripts build nothing themselves, so that they measure exactly the build they are given.
 */
export function builtBinary(path: string, command: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    log(`${path} does not exist. Build it first:\n\n  ${command}`);
    return null;
  }
}

/** Every variable src/config.ts reads, and the tests' database. */
const DEPOT_SETTINGS = new Set([
  "PORT",
  "HOST",
  "APP_URL",
  "DATABASE_URL",
  "DATABASE_CONNECT_TIMEOUT_SECONDS",
  "DATABASE_STATEMENT_TIMEOUT_SECONDS",
  "DATABASE_POOL_SIZE",
  "TEST_DATABASE_URL",
  "DATA_DIR",
  "STORAGE_DIR",
  "STORAGE_URL",
  "STORAGE_DOWNLOADS",
  "S3_ENDPOINT",
  "S3_REGION",
  "S3_ACCESS_KEY_ID",
  "S3_SECRET_ACCESS_KEY",
  "S3_SESSION_TOKEN",
  "AWS_ENDPOINT_URL",
  "AWS_ENDPOINT_URL_S3",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "PUBLIC_DIR",
  "APP_KEY",
  "MAX_UPLOAD_BYTES",
  "MAX_JSON_UPLOAD_BYTES",
  "LICENSE_DEFAULT_MAX_IPS",
  "SIGNING_KEY_GRACE_DAYS",
  "SIGNING_KEY_REFRESH_SECONDS",
  "TRUST_PROXY",
  "WEBHOOK_ALLOW_PRIVATE",
  "SMTP_URL",
  "MAIL_FROM",
  "LOG_LEVEL",
]);

/**
 * One APP_KEY for every benchmark run: the bench databases outlive a run's temporary DATA_DIR, and the
 * signing key stored in them opens only under the APP_KEY it was sealed with.
 */
const BENCH_APP_KEY = "depot-bench-app-key-0123456789abcdef0123";

/**
 * The caller's environment minus all of depot's settings, plus `settings`: depot runs on its
 * defaults except for what the benchmark sets (and a fixed APP_KEY), whatever the shell exports.
 */
export function depotEnv(settings: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !DEPOT_SETTINGS.has(key)) env[key] = value;
  }
  return { ...env, APP_KEY: BENCH_APP_KEY, ...settings };
}

/** Runs one depot CLI command (`depot migrate`, `depot user:create …`) and returns its stdout. */
export type DepotCli = (args: string[]) => Promise<string>;

/** A DepotCli for `binary`, run in `cwd` with the environment `env`. */
export function depotCli(binary: string, env: Record<string, string>, cwd?: string): DepotCli {
  return async (args) => (await run([binary, ...args], { cwd, env })).out;
}

/** `depot user:create`: the new user's id. */
export async function createUser(
  depot: DepotCli,
  user: { name: string; email: string; role: string },
): Promise<number> {
  const out = await depot([
    "user:create",
    "--name",
    user.name,
    "--email",
    user.email,
    "--role",
    user.role,
    "--json",
  ]);
  return (JSON.parse(out) as { id: number }).id;
}

/** The admin the upload, download and purchases benchmarks act as. */
export const BENCH_ADMIN = { name: "Bench Admin", email: "bench-admin@depot.test", role: "admin" };

/** `depot token:create`: a new bearer token for the user. */
export async function createToken(depot: DepotCli, userId: number): Promise<string> {
  const out = await depot(["token:create", "--user", String(userId), "--name", "bench", "--json"]);
  return (JSON.parse(out) as { token: string }).token;
}

/** A product owned by `userId`, made through the admin API; its id. */
export async function createProduct(origin: string, token: string, userId: number): Promise<number> {
  const res = await fetch(`${origin}/api/admin/products`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", user_id: userId }),
  });
  const product = (await res.json()) as { data?: { id: number } };
  if (res.status !== 201 || !product.data) {
    throw new Error(`creating the product answered ${res.status}: ${JSON.stringify(product)}`);
  }
  return product.data.id;
}

/**
 * `depot serve --no-workers` (no job processing competes with what is measured) on a free port of
 * 127.0.0.1, once GET /api/health answers 200. `env` is its environment but for PORT, HOST and
 * APP_URL, which follow the port; stdout and stderr as for startServer.
 */
export function startDepot(options: {
  binary: string;
  cwd?: string;
  env: Record<string, string>;
  stdout?: string;
  stderr?: string;
  what?: string;
}): Promise<Server> {
  return startServer({
    what: options.what ?? "depot serve",
    cmd: [options.binary, "serve", "--no-workers"],
    cwd: options.cwd,
    env: (port, origin) => ({ ...options.env, PORT: String(port), HOST: "127.0.0.1", APP_URL: origin }),
    health: "/api/health",
    stdout: options.stdout,
    stderr: options.stderr,
  });
}
