import { chmodSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { archiveSnapshot } from "../backup/archive.ts";
import { BackupFailed } from "../backup/errors.ts";
import { takeSnapshot } from "../backup/snapshot.ts";
import { AppError } from "../errors.ts";
import { PRIVATE_FILE } from "../file-modes.ts";
import type { Logger } from "../log.ts";
import type { Runtime } from "../runtime.ts";

/** Where a server on the embedded database listens for `depot backup` (DATA_DIR/depot.sock). */
export const controlSocketPath = (dataDir: string) => join(dataDir, "depot.sock");

/** A Unix socket path longer than this does not fit `sun_path` (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;

/** Runs an administrative command by name with the server's runtime (cli/admin-actions.ts). */
export type RunCommand = (name: string, input: unknown) => Promise<unknown>;

/**
 * The local control path of a server on the embedded database: a Unix socket in DATA_DIR, readable
 * and writable by its owner only (whoever may read DATA_DIR may read the database files anyway), with
 * two requests. `POST /backup` takes a snapshot inside this process (the only one that may open
 * the database) and streams the uncompressed tar; `depot backup` compresses it into its file.
 * `POST /command` `{name, input}` runs an administrative command (`depot user:create` and the like,
 * cli/admin-action.ts) here and answers `{result}`, or the error's status and body.
 * Returns a function that closes the socket.
 */
export function startControlSocket(runtime: Runtime, runCommand: RunCommand): () => void {
  const { config, log, database } = runtime;
  const pglite = database.pglite;
  const path = controlSocketPath(config.dataDir);
  if (!pglite) return () => {};
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn("control socket not started: DATA_DIR is too long a path for a Unix socket", { path });
    return () => {};
  }
  // We hold DATA_DIR's lock: a socket file here is a dead server's.
  rmSync(path, { force: true });
  let busy = false;
  const server = Bun.serve({
    unix: path,
    async fetch(request) {
      if (request.method === "POST" && new URL(request.url).pathname === "/command") {
        return command(request, runCommand, log);
      }
      if (request.method !== "POST" || new URL(request.url).pathname !== "/backup") {
        return Response.json({ message: "Not found." }, { status: 404 });
      }
      if (busy) return Response.json({ message: "another backup is in progress" }, { status: 409 });
      busy = true;
      let snapshot: Awaited<ReturnType<typeof takeSnapshot>>;
      try {
        snapshot = await takeSnapshot(pglite, config);
      } catch (error) {
        busy = false;
        log.error("backup failed", { error: error instanceof Error ? error.message : String(error) });
        const message =
          error instanceof BackupFailed ? error.message : "the snapshot failed (see the server log)";
        return Response.json({ message }, { status: 500 });
      }
      const appKeyPath = join(config.dataDir, "app.key");
      const appKey = existsSync(appKeyPath) ? new Uint8Array(readFileSync(appKeyPath)) : null;
      const { summary, tar } = archiveSnapshot(snapshot, appKey);
      // Once, however the stream ends: sent, failed, or dropped by a client that went away.
      let finished = false;
      const finish = async () => {
        if (finished) return;
        finished = true;
        busy = false;
        await snapshot.release();
      };
      // depot backup may have gone while the snapshot was taken: then nothing will read the body.
      if (request.signal.aborted) {
        await finish();
        return new Response(null, { status: 499 });
      }
      request.signal.addEventListener("abort", () => void finish());
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { value, done } = await tar.next();
            if (!done) return controller.enqueue(value);
            log.info("backup sent", { release_files: summary.release_files, bytes: summary.tar_bytes });
            await finish();
            controller.close();
          } catch (error) {
            log.error("backup failed", { error: error instanceof Error ? error.message : String(error) });
            await finish();
            controller.error(error);
          }
        },
        async cancel() {
          log.warn("backup cancelled: depot backup went away");
          await finish();
          await tar.return(undefined).catch(() => {});
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/x-tar", "x-depot-backup": JSON.stringify(summary) },
      });
    },
  });
  chmodSync(path, PRIVATE_FILE);
  return () => {
    server.stop(true);
    rmSync(path, { force: true });
  };
}

/** One administrative command: logged, so the server's log shows what was done through it. */
async function command(request: Request, runCommand: RunCommand, log: Logger): Promise<Response> {
  const body = (await request.json().catch(() => null)) as { name?: unknown; input?: unknown } | null;
  if (typeof body?.name !== "string") {
    return Response.json({ message: "expected {name, input}" }, { status: 400 });
  }
  log.info("control command", { command: body.name });
  try {
    return Response.json({ result: (await runCommand(body.name, body.input)) ?? null });
  } catch (error) {
    if (error instanceof AppError) return Response.json(error.body(), { status: error.status });
    log.error("control command failed", {
      command: body.name,
      error: error instanceof Error ? error.message : String(error),
    });
    return Response.json({ message: "the command failed (see the server log)" }, { status: 500 });
  }
}
