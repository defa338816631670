import { type OptionSpec, UsageError } from "../cli/command.ts";
import { DepotClient } from "./depot-client.ts";
import { retryPolicy } from "./retry.ts";

type Values = Record<string, string | boolean | string[] | undefined>;
type Env = Record<string, string | undefined>;

/**
 * How a client command proves who it is: a personal access token, or (downloads only) a license key.
 * `from` names where the token came from, for the message when the server refuses it.
 */
export type Credential =
  | { kind: "token"; token: string; from: "--token" | "DEPOT_TOKEN" }
  | { kind: "license-key"; key: string };

/** The options every client command takes; spread them into the command's own. */
export const CONNECTION_OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
} as const satisfies OptionSpec;

/** The usage-line part for them. */
export const CONNECTION_USAGE = "[--server URL] [--token T]";

/**
 * The server's base URL: `--server`, else DEPOT_URL. A path is kept (a depot behind a proxy at
 * /depot), a trailing slash dropped; anything but http(s) is a usage error.
 */
export function resolveServer(values: Values, env: Env): string {
  const raw = nonEmpty(values.server) ?? nonEmpty(env.DEPOT_URL);
  if (raw === undefined) throw new UsageError("no server: pass --server URL or set DEPOT_URL");
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) {
    throw new UsageError(
      `the server must be an http(s) base URL such as https://depot.example.com, got "${raw}"`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** `--token`, else DEPOT_TOKEN (which keeps the secret out of the process list); null when neither. */
export function resolveToken(values: Values, env: Env): Credential | null {
  const option = nonEmpty(values.token);
  if (option !== undefined) return { kind: "token", token: option, from: "--token" };
  const variable = nonEmpty(env.DEPOT_TOKEN);
  return variable === undefined ? null : { kind: "token", token: variable, from: "DEPOT_TOKEN" };
}

/** A client for commands that need a token: server, token and retry settings, all checked before any request. */
export function tokenClient(values: Values, env: Env): DepotClient {
  const server = resolveServer(values, env);
  const token = resolveToken(values, env);
  if (token === null) throw new UsageError("no token: pass --token T or set DEPOT_TOKEN");
  return new DepotClient(server, token, retryPolicy(env));
}

const nonEmpty = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
