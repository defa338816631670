import { existsSync } from "node:fs";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Config } from "../config.ts";
import { controlSocketPath } from "../control/socket.ts";
import { DataDirInUse } from "../db/embedded-lock.ts";
import { AppError, Invalid } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import { invalidFrom } from "../validation/messages.ts";
import { withRuntime } from "./command.ts";

/**
 * What an administrative command does with the database, apart from reading its options and printing:
 * a function of the runtime and a JSON input to a JSON result, so that it can run in this process or,
 * while `depot serve` holds the embedded database, in the server (through its control socket).
 */
export interface AdminAction<I, R> {
  readonly name: string;
  perform(runtime: Runtime, input: I): Promise<R>;
}

/**
 * An action whose input is checked against `input` (built from the HTTP API's own field schemas:
 * names, e-mail addresses, NewPassword) before `run` sees it. The check is the action's, not the
 * CLI's: what arrives through the control socket may come from any client of it, in any shape. Input
 * it does not take is refused 400, every failing field named (`input` for the whole value).
 */
export const adminAction = <S extends TSchema, R>(
  name: string,
  input: S,
  run: (runtime: Runtime, input: Static<S>) => Promise<R>,
): AdminAction<Static<S>, R> => ({
  name,
  async perform(runtime, value) {
    if (!Value.Check(input, value))
      throw new Invalid(invalidFrom([...Value.Errors(input, value)], "input").errors, 400);
    return run(runtime, value);
  },
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
  if ((response.status === 400 || response.status === 422) && body?.errors)
    throw new Invalid(body.errors, response.status);
  // The server's own message, as the command would have printed it here (User not found., …).
  throw new AppError(
    response.status,
    body?.message ?? `the running depot (pid ${inUse.pid}) answered HTTP ${response.status}`,
  );
}
