/**
 * Errors as log fields, without the values they carried. A failed query's message holds its
 * parameters (token and API-key hashes, webhook secret salts, e-mail addresses), and PostgreSQL's own
 * message may quote one ('invalid input syntax for type uuid: "…"'); so a database failure is logged as
 * its statement, SQLSTATE and the schema names PostgreSQL reports, never as its message.
 */

interface DatabaseFailure {
  code: string;
  constraint?: string;
  table?: string;
  column?: string;
}

/** postgres.js (`constraint_name`, …) and PGlite (`constraint`, …) name the same things differently. */
function databaseFailure(error: unknown): DatabaseFailure | null {
  const e = error as Record<string, unknown> | null;
  if (!e || typeof e.code !== "string" || !/^[0-9A-Z]{5}$/.test(e.code) || !("severity" in e)) return null;
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  return {
    code: e.code,
    constraint: text(e.constraint_name ?? e.constraint),
    table: text(e.table_name ?? e.table),
    column: text(e.column_name ?? e.column),
  };
}

/** Drizzle wraps a failed query: its message is "Failed query: <sql>\nparams: <values>". */
const failedQuery = (error: Error): string | null =>
  "query" in error && "params" in error && typeof error.query === "string" ? error.query : null;

/** The stack's frames only: its first line repeats the message. */
const framesOf = (stack: string | undefined) =>
  stack
    ?.split("\n")
    .filter((line) => line.startsWith("    at "))
    .join("\n");

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return copiedErrorFields(error);
  const query = failedQuery(error);
  const database = databaseFailure(query === null ? error : error.cause);
  if (query !== null || database) {
    // A failure without a SQLSTATE is the driver's: it could not connect, or the connection went
    // (ECONNREFUSED, CONNECT_TIMEOUT, CONNECTION_CLOSED, …). Its code says which.
    const driverCode = text((error.cause as { code?: unknown } | undefined)?.code);
    return {
      name: "DatabaseError",
      query: query ?? undefined,
      ...(database ?? { code: driverCode }),
      stack: framesOf(error.stack),
    };
  }
  const code = (error as NodeJS.ErrnoException).code;
  return { name: error.name, message: error.message, code, stack: error.stack };
}

/**
 * pg-boss reports a worker's failure as a copy of the error's own fields (`{ ...error, message, stack }`),
 * not as an Error: the same fields are read from it, PostgreSQL's message left out as above. The copy
 * has no `name` (it lives on the prototype); the stack's first line, `Name: message`, still has it.
 */
function copiedErrorFields(error: unknown): Record<string, unknown> {
  if (typeof error !== "object" || error === null) return { message: String(error) };
  const fields = error as Record<string, unknown>;
  const stack = text(fields.stack);
  const database = databaseFailure(fields);
  if (database) return { name: "DatabaseError", ...database, stack: framesOf(stack) };
  return {
    name: text(fields.name) ?? /^([A-Za-z_$][\w$]*):/.exec(stack ?? "")?.[1],
    message: text(fields.message),
    code: text(fields.code),
    stack,
  };
}

/** One line for where only a string fits (a job's stored output). */
export function errorSummary(error: unknown): string {
  const fields = errorFields(error);
  if (fields.name === "DatabaseError") return `Database error ${fields.code ?? "(no SQLSTATE)"}`;
  return String(fields.message);
}
