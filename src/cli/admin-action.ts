import { existsSync } from "node:fs";
import type { Config } from "../config.ts";
import { controlSocketPath } from "../control/socket.ts";
import { DataDirInUse } from "../db/embedded-lock.ts";
import { AppError, Invalid } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { withRuntime } from "./command.ts";

/**
 * What an administrative command does with the database, apart from reading its options and printing:
 * a function of the runtime and a JSON input to a JSON result, so that it can run in this process or,
 * while `depot serve` holds the embedded database, in the server (through its control socket).
 * `perform` validates its input itself: it is the same code either way.
 */
export interface AdminAction<I, R> {
  readonly name: string;
  perform(runtime: Runtime, input: I): Promise<R>;
}

export const adminAction = <I, R>(
  name: string,
  perform: AdminAction<I, R>["perform"],
): AdminAction<I, R> => ({
  name,
  perform,
});

/**
 * Runs the action here with the database open; when a running server holds the embedded database
 * (DataDirInUse), sends it to that server's control socket instead, so `docker exec … depot
 * user:create` works beside `depot serve`. With PostgreSQL every process opens the database itself.
 */
export async function performAdmin<I, R>(config: Config, action: AdminAction<I, R>, input: I): Promise<R> {
  try {
    return await withRuntime(config, (runtime) => action.perform(runtime, input));
  } catch (error) {
    if (error instanceof DataDirInUse) return performThroughServer(config, error, action, input);
    throw error;
  }
}

async function performThroughServer<I, R>(
  config: Config,
  inUse: DataDirInUse,
  action: AdminAction<I, R>,
  input: I,
): Promise<R> {
  const socket = controlSocketPath(config.dataDir);
  // Another command (not a server) holds the database: it offers no socket, and will be done soon.
  if (!existsSync(socket)) throw inUse;
  const response = await fetch("http://depot/command", {
    method: "POST",
    unix: socket,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: action.name, input }),
  }).catch(() => null);
  if (!response) throw inUse;
  const body = (await response.json().catch(() => null)) as {
    result?: R;
    message?: string;
    errors?: Record<string, string[]>;
  } | null;
  if (response.ok && body && "result" in body) return body.result as R;
  if (response.status === 422 && body?.errors) throw new Invalid(body.errors);
  // The server's own message, as the command would have printed it here (User not found., …).
  throw new AppError(
    response.status,
    body?.message ?? `the running depot (pid ${inUse.pid}) answered HTTP ${response.status}`,
  );
}
