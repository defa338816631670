/**
 * Codes that say the database is not there, rather than that a statement is wrong: it cannot be reached,
 * it did not answer in time, or it ended the connection. A moment later the same request may succeed.
 */
const UNAVAILABLE = new Set([
  // postgres.js: connecting, a connection that closed or was given up (ANSWER_TIMEOUT and
  // QUEUE_TIMEOUT come from patches/postgres+3.4.9.patch: see openPostgres), a pool shutting down.
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "ANSWER_TIMEOUT",
  "QUEUE_TIMEOUT",
  // The socket under it.
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  // PostgreSQL: shutting down (57P01, 57P02), starting up (57P03), out of connections (53300), and a
  // statement cancelled, which statement_timeout does (57014). Class 08 is checked below.
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "57014",
]);

/** The failure, or what it wraps (drizzle keeps the driver's error as `cause`), means the database is away. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current = error as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; depth < 5 && current; depth++) {
    const { code } = current;
    // SQLSTATE class 08: connection exceptions.
    if (typeof code === "string" && (UNAVAILABLE.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    current = current.cause as typeof current;
  }
  return false;
}

/** PostgreSQL's unique_violation (23505), as postgres.js or PGlite report it (directly or as the cause). */
export function isUniqueViolation(error: unknown): boolean {
  const failure = error as { code?: string; cause?: { code?: string } } | null;
  return failure?.code === "23505" || failure?.cause?.code === "23505";
}
