import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { migrations } from "../../db/migrations.gen.ts";
import { selectRows } from "../../db/rows.ts";
import { DatabaseUnavailable } from "../../errors.ts";
import { PRIVATE_FILE } from "../../file-modes.ts";
import { errorFields } from "../../log-errors.ts";

/** How long one check may take before it counts as failed: an orchestrator probes every few seconds. */
const CHECK_TIMEOUT_MS = 2000;

/** "ok", or why not, in words safe to show anyone (no paths, hosts or driver messages). */
export type CheckResult = "ok" | (string & {});

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/**
 * An orchestrator's probe gives up after about a second (Kubernetes' default timeoutSeconds is 1), and
 * a probe without an answer looks like a dead process: the answer comes before that, a 503 when the
 * database has not answered by then.
 */
const LIVENESS_TIMEOUT_MS = 800;

/** Liveness as GET /api/health answers it: the database answers in time, or a 503. */
export async function liveness(ctx: AppContext) {
  try {
    await ctx.database.ping(LIVENESS_TIMEOUT_MS);
  } catch {
    throw new DatabaseUnavailable();
  }
  return { status: "ok" };
}

/** Readiness as GET /api/health/ready answers it: 200 when every check is ok, else a 503 with the checks. */
export async function readinessAnswer(ctx: AppContext, set: { status?: number | string }) {
  const { ready, checks } = await readiness(ctx);
  if (ready) return { status: "ready" as const, checks };
  set.status = 503;
  return { message: "Not ready.", checks };
}

/**
 * Whether this instance should get traffic: the database answers, its schema is the one this build
 * expects, the release store takes a write, and (where this process started it) the job runner is up.
 * The checks run side by side; each failure is logged with its cause, the answer says only which.
 */
export async function readiness(ctx: AppContext): Promise<Readiness> {
  const checks: [string, Promise<CheckResult>][] = [
    ["database", databaseCheck(ctx)],
    ["migrations", migrationsCheck(ctx)],
    ["storage", storageCheck(ctx)],
  ];
  if (ctx.jobs.started) checks.push(["jobs", Promise.resolve(ctx.jobs.running ? "ok" : "not running")]);
  const results = await Promise.all(
    checks.map(async ([name, check]) => [name, await check.catch((error) => failed(ctx, name, error))]),
  );
  const named = Object.fromEntries(results) as Record<string, CheckResult>;
  return { ready: Object.values(named).every((result) => result === "ok"), checks: named };
}

async function databaseCheck(ctx: AppContext): Promise<CheckResult> {
  try {
    await ctx.database.ping(CHECK_TIMEOUT_MS);
    return "ok";
  } catch (error) {
    failed(ctx, "database", error);
    return isTimeout(error) ? `no answer within ${CHECK_TIMEOUT_MS} ms` : "unavailable";
  }
}

/**
 * Every migration this build embeds must be recorded as applied. One it does not know (a newer depot
 * migrated the database) does not make it unready: migrations only add, and during a rolling upgrade
 * the older instances keep serving until they are replaced.
 */
async function migrationsCheck(ctx: AppContext): Promise<CheckResult> {
  const rows = await withTimeout(
    selectRows<{ created_at: string }>(
      ctx.db,
      sql`SELECT created_at::text FROM drizzle.__drizzle_migrations`,
    ),
  );
  const applied = new Set(rows.map((row) => Number(row.created_at)));
  const pending = migrations.filter((migration) => !applied.has(migration.createdAt)).length;
  return pending === 0 ? "ok" : `${pending} pending (run depot migrate or restart)`;
}

/**
 * The release store takes files. On local disk: a small file written to STORAGE_DIR and removed, as a
 * publish would (a full, read-only or vanished disk fails it). In an object store: one look-up of a key
 * that does not exist, which needs the store reachable and our credentials accepted, and writes nothing.
 */
async function storageCheck(ctx: AppContext): Promise<CheckResult> {
  if (ctx.releases.kind === "s3") return objectStoreCheck(ctx);
  const probe = join(ctx.config.storageDir, `.ready-${crypto.randomUUID()}`);
  try {
    await withTimeout(writeFile(probe, "ready\n", { flag: "wx", mode: PRIVATE_FILE }));
    await rm(probe, { force: true });
    return "ok";
  } catch (error) {
    failed(ctx, "storage", error);
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `not writable (${code})` : "not writable";
  }
}

async function objectStoreCheck(ctx: AppContext): Promise<CheckResult> {
  try {
    await withTimeout(ctx.releases.size(`.ready/${crypto.randomUUID()}`));
    return "ok";
  } catch (error) {
    failed(ctx, "storage", error);
    return isTimeout(error) ? `no answer within ${CHECK_TIMEOUT_MS} ms` : "unavailable";
  }
}

/**
 * The answer says only that a check failed, in words safe for anyone; the log keeps the cause (as
 * every failure is logged: no parameters, no secrets).
 */
function failed(ctx: AppContext, check: string, error: unknown): CheckResult {
  ctx.log.warn("readiness check failed", { check, error: errorFields(error) });
  return "could not be checked";
}

const isTimeout = (error: unknown) => (error as { code?: unknown })?.code === "ETIMEDOUT";

async function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(Object.assign(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`), { code: "ETIMEDOUT" })),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
