import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, buildApp } from "../../src/app.ts";
import { type LogLevel, loadConfig } from "../../src/config.ts";
import type { Database } from "../../src/db/client.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { type Runtime, wire } from "../../src/runtime.ts";
import { freshDatabase } from "./db.ts";

export interface TestApp {
  ctx: Runtime;
  app: App;
  /** Sends a request through the app (no socket); `path` starts with `/`. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /**
   * Starts a real listening server (for limits, streaming and shutdown) and returns its base URL; on
   * `port` when given (an app whose APP_URL must be its own address, for clients that follow its links).
   */
  listen(port?: number): string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Start pg-boss: "send" only, or with "workers". */
  jobs?: "send" | "workers";
  /** Use this database instead of a fresh one (it is closed with the app). */
  database?: Database;
  /** Where the app logs (silent unless given). */
  log?: Logger;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const fresh = options.database ? null : await freshDatabase();
  const database = options.database ?? fresh?.database;
  if (!database) throw new Error("no database");
  const dataDir = mkdtempSync(join(tmpdir(), "depot-test-"));
  const config = loadConfig({ DATA_DIR: dataDir, APP_URL: "http://depot.test", ...options.env });
  const ctx = await wire(config, options.log ?? createLogger("silent"), database);
  await ctx.signing.load();
  if (options.jobs)
    await ctx.jobs.start(ctx, { workers: options.jobs === "workers", superviseIntervalMs: 500 });
  const app = buildApp(ctx);
  let listening = false;
  return {
    ctx,
    app,
    request: (path, init) => app.handle(new Request(`http://localhost${path}`, init)),
    listen(port = 0) {
      app.listen({ port, hostname: "127.0.0.1" });
      listening = true;
      return `http://127.0.0.1:${app.server?.port}`;
    },
    async close() {
      if (listening) await app.stop(true);
      await ctx.jobs.stop(1000);
      if (fresh) await fresh.drop();
      else await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON request options: `json(body)` → POST with the body, `json(body, { method: "PATCH", token })`. */
export function json(body: unknown, options: { method?: string; token?: string } = {}): RequestInit {
  return {
    method: options.method ?? "POST",
    headers: { "content-type": "application/json", ...(options.token ? bearer(options.token) : {}) },
    body: JSON.stringify(body),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A response body as JSON; tests assert its shape field by field. */
// biome-ignore lint/suspicious/noExplicitAny: assertions below narrow it
export const readJson = (response: Response): Promise<any> => response.json();

/** A logger that keeps every line it would write, parsed, for assertions on what was logged. */
export function recordingLogger(level: LogLevel = "debug") {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger(level, (line) => lines.push(JSON.parse(line))) };
}
