import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { sql } from "drizzle-orm";
import { fromDrizzle, fromPglite, type Job, type JobResult, PgBoss, type SendOptions } from "pg-boss";
import type { AppContext } from "../context.ts";
import type { Database, Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { errorFields, errorSummary } from "../log-errors.ts";
import type { QueueDefinition } from "./registry.ts";

/**
 * How soon the jobs of a killed worker are retried by the others. pg-boss fails a job whose heartbeat
 * is older than its queue's heartbeatSeconds (15 for a fan-out), but only in its monitor pass, which
 * runs at most every monitorIntervalSeconds (default 60) on a supervise tick (every
 * superviseIntervalSeconds): with 60 a stranded fan-out waited up to 75 s. With both at 10 it is
 * taken again within about 15 + 10 s plus a retry delay of 1–2 s (bench/README.md, "Stranded
 * fan-out"). The same pass counts the queues, so depot_job_queue_jobs is as fresh; its aggregate
 * over the job table costs about 0.2 s per million jobs (pg-boss's own measurement).
 */
const BOSS_OPTIONS = { superviseIntervalSeconds: 10, monitorIntervalSeconds: 10 } as const;

/**
 * pg-boss's own PostgreSQL pool (pg's, connecting on demand), apart from depot's. Where the queues'
 * handlers run (`depot worker`, and `depot serve`'s job runner: its only process or slot 0) it fetches,
 * settles jobs, heartbeats and supervises at once: 4.
 *
 * A process that only sends (the other `depot serve` processes, and any `serve --no-workers`) needs
 * one, whose statements take turns: start-up (pg-boss's schema check, one look at the queues, creating
 * a missing one), a send outside a transaction (a password link's e-mail; an outbox send runs in the
 * caller's transaction, on depot's pool), pg-boss's queue cache refresh and supervise pass (the
 * processes take turns at the latter, by claim and advisory lock), and the metrics' queue counts.
 * pg-boss never asks its pool for a second connection while it holds one (a transaction of its own
 * runs all its statements on the connection it pinned), so with one they wait in turn, never forever.
 */
const RUNNER_BOSS_POOL = 4;
const SENDER_BOSS_POOL = 1;

/** Whether a stored queue already has every option its definition sets. */
function hasOptions(stored: object, options: object): boolean {
  return Object.entries(options).every(([key, value]) => (stored as Record<string, unknown>)[key] === value);
}

/** An id no job has, for warming pg-boss's queue cache. */
const NO_JOB = "00000000-0000-0000-0000-000000000000";

export interface JobRunnerOptions {
  /** Run the queues' handlers in this process (`serve` and `worker`), or only send (`serve --no-workers`). */
  workers: boolean;
  /** How often the database is pinged to notice it came back after an outage. */
  superviseIntervalMs?: number;
}

/**
 * pg-boss on depot's database, kept alive across database outages.
 *
 * pg-boss does not recover by itself when PostgreSQL restarts (its workers keep failing; timgit/pg-boss#510),
 * so the runner watches for errors and pings the database; once it answers again after a failure the
 * whole PgBoss instance is rebuilt and the workers re-registered.
 */
export class JobRunner {
  #boss: PgBoss | null = null;
  #ctx: AppContext | null = null;
  #options: JobRunnerOptions = { workers: false };
  #broken = false;
  #restarting: Promise<void> | null = null;
  #supervisor: Timer | null = null;
  /** How many times the queue was rebuilt after an outage (logged, and observable in tests). */
  restarts = 0;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    // biome-ignore lint/suspicious/noExplicitAny: heterogeneous queue list
    private readonly queues: readonly QueueDefinition<any>[],
  ) {}

  get running(): boolean {
    return this.#boss !== null && !this.#broken;
  }

  /**
   * `start` was called in this process (it may since have stopped, at shutdown, or be reconnecting
   * after an outage: see `running`). Readiness checks the runner only where it was started.
   */
  get started(): boolean {
    return this.#ctx !== null;
  }

  /** Each queue's waiting and running jobs, as pg-boss last counted them (its monitor, about every 10 s). */
  async queueDepths(): Promise<{ queue: string; ready: number; deferred: number; active: number }[]> {
    const boss = this.#boss;
    if (!boss) return [];
    const rows = await boss.getQueues(this.queues.map((queue) => queue.name));
    return rows.map((row) => ({
      queue: row.name,
      ready: row.readyCount ?? 0,
      deferred: row.deferredCount ?? 0,
      active: row.activeCount ?? 0,
    }));
  }

  async start(ctx: AppContext, options: JobRunnerOptions): Promise<void> {
    this.#ctx = ctx;
    this.#options = options;
    this.#boss = await this.#startBoss();
    this.#supervisor = setInterval(() => void this.#supervise(), options.superviseIntervalMs ?? 5000);
  }

  /** Enqueues a job. Pass `db: fromDrizzle(tx, sql)` in options to enqueue inside a transaction. */
  async send<S extends TSchema>(
    queue: QueueDefinition<S>,
    data: Static<S>,
    options: SendOptions = {},
  ): Promise<string | null> {
    if (!this.#boss) throw new Error("The job runner is not started.");
    return this.#boss.send(queue.name, data as object, options);
  }

  /**
   * Enqueues many jobs in one statement. Jobs carry their own ids; an id already queued is skipped
   * (pg-boss inserts with ON CONFLICT DO NOTHING), so enqueueing the same batch twice adds nothing.
   */
  async insertMany<S extends TSchema>(
    queue: QueueDefinition<S>,
    jobs: { id: string; data: Static<S> }[],
  ): Promise<void> {
    if (!this.#boss) throw new Error("The job runner is not started.");
    if (jobs.length === 0) return;
    await this.#boss.insert(
      queue.name,
      jobs.map((job) => ({ id: job.id, data: job.data as object })),
    );
  }

  /**
   * Enqueues a job inside the caller's transaction (the outbox): it exists if and only if the
   * transaction commits.
   */
  sendInTransaction<S extends TSchema>(
    tx: Db,
    queue: QueueDefinition<S>,
    data: Static<S>,
  ): Promise<string | null> {
    // pg-boss types its adapter for a generic Drizzle transaction; ours is the same object, typed per schema.
    return this.send(queue, data, {
      db: fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql),
    });
  }

  /** Stops fetching, lets running jobs finish (up to `timeoutMs`), and releases the connection pool. */
  async stop(timeoutMs = 30_000): Promise<void> {
    if (this.#supervisor) clearInterval(this.#supervisor);
    this.#supervisor = null;
    await this.#restarting;
    const boss = this.#boss;
    this.#boss = null;
    await boss?.stop({ graceful: true, timeout: timeoutMs, close: true });
  }

  async #startBoss(): Promise<PgBoss> {
    const boss = this.database.pglite
      ? new PgBoss({ ...BOSS_OPTIONS, db: fromPglite(this.database.pglite), backend: "pglite" })
      : new PgBoss({
          ...BOSS_OPTIONS,
          connectionString: this.database.url ?? "",
          max: this.#options.workers ? RUNNER_BOSS_POOL : SENDER_BOSS_POOL,
          application_name: "depot-jobs",
        });
    boss.on("error", (error) => {
      this.#broken = true;
      // A worker's failure names its queue (pg-boss adds it to the copy of the error it emits).
      const queue = (error as { queue?: unknown }).queue;
      this.log.warn("job queue error", {
        queue: typeof queue === "string" ? queue : undefined,
        error: errorFields(error),
      });
    });
    await boss.start();
    // One look at every queue rather than a create and an update of each at every start (each a
    // locking transaction): about half of pg-boss's part of a warm start (bench/README.md, "First
    // start"). A queue is created when missing; createQueue leaves an existing queue as it was, so
    // one whose options differ from its definition (changed in a release) is updated.
    const stored = new Map((await boss.getQueues(this.queues.map((q) => q.name))).map((q) => [q.name, q]));
    for (const queue of this.queues) {
      const existing = stored.get(queue.name);
      if (!existing) await boss.createQueue(queue.name, queue.options);
      else if (queue.options && !hasOptions(existing, queue.options)) {
        await boss.updateQueue(queue.name, queue.options);
      }
      // pg-boss looks a queue up on its own connection the first time it sends to it. Inside a
      // transaction on PGlite (one connection) that look-up would wait for the transaction forever, so
      // the cache is filled now, before any outbox send.
      await boss.getJobById(queue.name, NO_JOB);
      // A queue without a handler is an outbox another part fills and a later consumer drains.
      if (this.#options.workers && queue.handle) {
        // Each job of a batch settles on its own: one failing webhook endpoint must not fail (and
        // spend the retries of) the deliveries fetched with it.
        await boss.work(
          queue.name,
          // A full batch means more is waiting: fetch again at once instead of after the poll interval.
          {
            batchSize: queue.concurrency ?? 1,
            perJobResults: true,
            burstWhenBatchFull: true,
            pollingIntervalSeconds: 1,
          },
          async (jobs: Job<unknown>[]): Promise<JobResult[]> =>
            Promise.all(jobs.map((job) => this.#settle(queue, job))),
        );
      }
    }
    return boss;
  }

  /** Runs one job and logs one line for it: queue, id, attempt, duration and outcome. */
  async #settle(queue: QueueDefinition, job: Job<unknown>): Promise<JobResult> {
    const started = performance.now();
    const retryCount = (job as Job<unknown> & { retryCount?: number }).retryCount ?? 0;
    const line = (outcome: string) => {
      const ms = performance.now() - started;
      this.#ctx?.metrics?.job(queue.name, outcome, ms / 1000);
      return {
        queue: queue.name,
        job_id: job.id,
        retry: retryCount,
        duration_ms: Math.round(ms * 100) / 100,
        outcome,
      };
    };
    if (!Value.Check(queue.payload, job.data)) {
      // Retrying cannot fix a malformed payload: record it and complete the job.
      this.log.error("job", line("payload rejected"));
      return { id: job.id, status: "completed" };
    }
    try {
      const ctx = this.#ctx;
      if (!ctx) throw new Error("The job runner is not started.");
      await queue.handle?.(ctx, job.data, { id: job.id, retryCount });
      this.log.info("job", line("completed"));
      return { id: job.id, status: "completed" };
    } catch (error) {
      this.log.warn("job", { ...line("failed"), error: errorFields(error) });
      return { id: job.id, status: "failed", output: { message: errorSummary(error) } };
    }
  }

  async #supervise(): Promise<void> {
    if (this.#restarting) return;
    try {
      await this.database.ping();
    } catch {
      this.#broken = true;
      return;
    }
    if (!this.#broken) return;
    this.#restarting = this.#restart().finally(() => {
      this.#restarting = null;
    });
  }

  async #restart(): Promise<void> {
    const old = this.#boss;
    this.#boss = null;
    await old?.stop({ graceful: false, close: true, timeout: 1000 }).catch(() => {});
    try {
      this.#broken = false;
      this.#boss = await this.#startBoss();
      this.restarts++;
      this.log.info("job queue reconnected", { restarts: this.restarts });
    } catch (error) {
      this.#broken = true;
      this.log.warn("job queue still unavailable", { error: errorFields(error) });
    }
  }
}
