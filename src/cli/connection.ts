import { type Credential, DepotClient } from "../cli-client/depot-client.ts";
import { DEFAULT_RETRY, MAX_DELAY_MS, type RetryPolicy } from "../cli-client/retry.ts";
import { type OptionSpec, UsageError } from "./command.ts";
import { readLogin, type StoredLogin } from "./login-store.ts";

// The command line's side of talking to a server: src/cli-client/ takes what is read here and never
// reads options or the environment itself.

type Values = Record<string, string | boolean | string[] | undefined>;
type Env = Record<string, string | undefined>;

/** The options every client command takes; spread them into the command's own. */
export const CONNECTION_OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
} as const satisfies OptionSpec;

/** The usage-line part for them. */
export const CONNECTION_USAGE = "[--server URL] [--token T]";

/**
 * The login `depot login` stored, read when first asked for and then kept: the server and the token
 * of one command come from one reading of the file.
 */
export function storedLogin(env: Env): () => StoredLogin | null {
  let login: StoredLogin | null | undefined;
  return () => {
    login ??= readLogin(env);
    return login;
  };
}

/**
 * The server's base URL: `--server`, else DEPOT_URL, else the one `depot login` stored. A path is
 * kept (a depot behind a proxy at /depot), a trailing slash dropped; anything but http(s) is a usage
 * error.
 */
export function resolveServer(values: Values, env: Env, login = storedLogin(env)): string {
  const raw = nonEmpty(values.server) ?? nonEmpty(env.DEPOT_URL) ?? login()?.server;
  if (raw === undefined)
    throw new UsageError("no server: pass --server URL, set DEPOT_URL, or run depot login");
  return normalizeServer(raw);
}

/** An http(s) base URL without its trailing slash; anything else is a usage error. */
export function normalizeServer(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new UsageError(
      `the server must be an http(s) base URL such as https://depot.example.com, got "${raw}"`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * `--token`, else DEPOT_TOKEN (which keeps the secret out of the process list), else the token
 * `depot login` stored, but only for the server it was stored for: a `--server` or DEPOT_URL naming
 * another never receives it. `server` is the command's (resolveServer). Null when there is none.
 */
export function resolveToken(
  values: Values,
  env: Env,
  server: string,
  login = storedLogin(env),
): Credential | null {
  const option = nonEmpty(values.token);
  if (option !== undefined) return { kind: "token", token: option, from: "--token" };
  const variable = nonEmpty(env.DEPOT_TOKEN);
  if (variable !== undefined) return { kind: "token", token: variable, from: "DEPOT_TOKEN" };
  const stored = login();
  if (stored === null || server !== normalizeServer(stored.server)) return null;
  return { kind: "token", token: stored.token, from: "depot login" };
}

/** A client for commands that need a token: server, token and retry settings, all checked before any request. */
export function tokenClient(values: Values, env: Env): DepotClient {
  const login = storedLogin(env);
  const server = resolveServer(values, env, login);
  const token = resolveToken(values, env, server, login);
  if (token === null) throw new UsageError("no token: pass --token T, set DEPOT_TOKEN, or run depot login");
  return new DepotClient(server, token, retryPolicy(env));
}

/**
 * DEPOT_RETRIES and DEPOT_RETRY_DELAY_MS (docs/reference/cli.md, Client commands): tests and impatient scripts
 * shorten the waits; a flaky link may want more attempts.
 */
export function retryPolicy(env: Record<string, string | undefined>): RetryPolicy {
  return {
    retries: whole(env, "DEPOT_RETRIES", DEFAULT_RETRY.retries, 100),
    firstDelayMs: whole(env, "DEPOT_RETRY_DELAY_MS", DEFAULT_RETRY.firstDelayMs, MAX_DELAY_MS),
  };
}

function whole(env: Record<string, string | undefined>, name: string, fallback: number, max: number) {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw new UsageError(`${name} must be a whole number from 0 to ${max}, got "${raw}"`, false);
  }
  return Number(raw);
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
