import { ConfigError } from "./config.ts";

/**
 * A database that cannot be reached, is not there or refuses the login is a setting that does not
 * work here, not a bug: as a ConfigError naming DATABASE_URL, main prints it as one line and exits 2.
 * Returns null for anything else, which keeps its stack trace.
 */
export function databaseStartupError(error: unknown, databaseUrl: string): ConfigError | null {
  const driverError = rootCause(error);
  const cause = databaseCause(errorCode(driverError), driverError);
  return cause === null
    ? null
    : new ConfigError("DATABASE_URL", `cannot connect to ${databaseTarget(databaseUrl)}: ${cause}`);
}

/** The same for the HTTP listener: a port in use or forbidden names PORT, an address not ours names HOST. */
export function listenStartupError(
  error: unknown,
  host: string,
  port: number,
  names: { port: string; host: string } = { port: "PORT", host: "HOST" },
): ConfigError | null {
  switch (errorCode(error)) {
    case "EADDRINUSE":
      return new ConfigError(names.port, `${host}:${port} is already in use by another process`);
    case "EACCES":
      return new ConfigError(
        names.port,
        `not allowed to listen on port ${port} (ports below 1024 need privileges)`,
      );
    case "EADDRNOTAVAIL":
      return new ConfigError(names.host, `cannot listen on ${host}: not an address of this machine`);
    default:
      return null;
  }
}

function databaseCause(code: string | undefined, error: unknown): string | null {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (is PostgreSQL running and listening on that port?)";
    case "ENOTFOUND":
      return "the host name does not resolve";
    case "EAI_AGAIN":
      return "the host name could not be resolved (DNS lookup failed; try again later)";
    case "ECONNRESET":
      return "the connection was closed before PostgreSQL answered (is it PostgreSQL on that port?)";
    // postgres.js's connect_timeout, or no answer to the first query at all (client.ts, ping).
    case "ETIMEDOUT":
    case "CONNECT_TIMEOUT":
      return "no answer from PostgreSQL in time (is that the right host and port?)";
    // The server's own words name the database or the role; they never contain the password.
    case "3D000": // invalid_catalog_name: the database does not exist
      return (error as Error).message;
    case "28000": // invalid_authorization_specification: no such role, or no pg_hba.conf entry
    case "28P01": // invalid_password
      return `login refused: ${(error as Error).message}`;
    default:
      return null;
  }
}

/** drizzle wraps the driver's error ("Failed query: …") and keeps it as `cause`. */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
  }
  return current;
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/** `host:port/database` from a connection string: what to check, without the user's password. */
export function databaseTarget(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const database = decoded(url.pathname.replace(/^\//, ""));
  return `${url.hostname}:${url.port || "5432"}${database === "" ? "" : `/${database}`}`;
}

/** A bad %-escape shows as written: the message must not fail while describing another failure. */
function decoded(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}
