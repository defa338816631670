import { availableParallelism } from "node:os";
import { buildApp } from "../app.ts";
import type { Config } from "../config.ts";
import { startControlSocket } from "../control/socket.ts";
import { processPoolSize } from "../db/pool-size.ts";
import { backfillSha512 } from "../features/artifacts/sha512-backfill.ts";
import { sweepReleaseLeftovers } from "../features/artifacts/sweep.ts";
import { sweepDeadMachinesEvery } from "../features/machines/sweep.ts";
import { sweepExpiredSessionsEvery } from "../features/sessions/sweep.ts";
import { newSetupLink, setupIsOpen } from "../features/setup/service.ts";
import { dropExpiredKeysEvery } from "../features/signing/sweep.ts";
import { keepUsageEvery } from "../features/stats/sweep.ts";
import { FEED_CHANNEL, onFeedChange } from "../features/updates/feed-cache.ts";
import { sweepOldUpdateChecksEvery } from "../features/updates/sweep.ts";
import { sweepExpiredUploadsEvery } from "../features/uploads/sweep.ts";
import { createLogger, type Logger } from "../log.ts";
import { errorFields } from "../log-errors.ts";
import { startMetricsServer } from "../metrics/server.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { listenStartupError } from "../startup-errors.ts";
import { runAdminCommand } from "./admin-actions.ts";
import { type Command, UsageError } from "./command.ts";
import { linkToParent, serveProcessCount, serveProcessSlot } from "./serve-link.ts";
import { ServeProcesses } from "./serve-processes.ts";
import { setupLinkLines } from "./setup-link.ts";
import { untilSignal } from "./signals.ts";

const LOOPBACK_ONLY =
  "only this machine can connect (HOST defaults to 127.0.0.1 outside a container): set HOST=0.0.0.0 to " +
  "accept other machines, or put a proxy in front (docs/operators.md)";

/** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
const DRAIN_TIMEOUT_MS = 30_000;

export const serveCommand: Command = {
  name: "serve",
  summary: "HTTP server (+ job workers unless --no-workers)",
  usage: "depot [serve] [--no-workers] [--processes N]",
  details:
    "--no-workers leaves the jobs to `depot worker` processes, so it needs DATABASE_URL (PostgreSQL).\n" +
    "--processes N: HTTP processes sharing the port (default SERVE_PROCESSES, else one per core on PostgreSQL;\n" +
    "always 1 on the embedded database, which belongs to one process).",
  options: { "no-workers": { type: "boolean" }, processes: { type: "string" } },
  async run(config, values) {
    const workers = values["no-workers"] !== true;
    if (!workers && config.databaseUrl === null) {
      // The embedded database belongs to this process: a `depot worker` beside it cannot open it.
      throw new UsageError(
        "--no-workers needs DATABASE_URL (PostgreSQL): on the embedded database no other process can run the jobs",
        false,
      );
    }
    const log = createLogger(config.logLevel);
    const slot = serveProcessSlot();
    if (slot !== null) return serveHere(config, log, { workers, slot, processes: serveProcessCount() });
    const processes = processCount(config, values.processes);
    if (processes.count > 1) {
      return new ServeProcesses(config, log, processes.count, process.argv.slice(2)).run();
    }
    return serveHere(config, log, { workers, slot: null, processes: 1, note: processes.note });
  },
};

const EMBEDDED_ONE_PROCESS =
  "the embedded database belongs to one process, so one HTTP process serves: point DATABASE_URL at " +
  "PostgreSQL for one per core";

/**
 * How many HTTP processes: `--processes`, else SERVE_PROCESSES, else one per core; always one on the
 * embedded database (the note says so at start).
 */
function processCount(config: Config, option: unknown): { count: number; note?: string } {
  if (
    option !== undefined &&
    (typeof option !== "string" || !/^\d+$/.test(option) || !inRange(Number(option)))
  ) {
    throw new UsageError(`--processes: expected a number from 1 to 1024, got "${String(option)}"`);
  }
  if (config.databaseUrl === null) return { count: 1, note: EMBEDDED_ONE_PROCESS };
  return { count: option === undefined ? (config.serveProcesses ?? availableParallelism()) : Number(option) };
}

const inRange = (count: number) => count >= 1 && count <= 1024;

interface ServeRole {
  workers: boolean;
  /** Which of a parent's HTTP processes this is (slot 0 runs the jobs and sweeps); null: the only one. */
  slot: number | null;
  /** How many HTTP processes this `depot serve` runs: each takes its share of DATABASE_POOL_SIZE. */
  processes: number;
  note?: string;
}

/** One HTTP process: the whole server, or one of a parent's (cli/serve-processes.ts). */
async function serveHere(config: Config, log: Logger, role: ServeRole): Promise<number> {
  const { slot } = role;
  // Under a parent, a signal during start-up is kept for when the server listens (the parent waits for
  // this process to exit), and a second Ctrl-C (the terminal signals the whole group) cannot cut the drain short.
  const early = slot === null ? null : untilSignal();
  if (slot !== null) for (const name of ["SIGINT", "SIGTERM"] as const) process.on(name, () => {});
  // One process runs the jobs, the sweeps, the key timers and the first run's steps: the only one, or slot 0.
  const runsJobs = slot === null || slot === 0;
  const runtime = await openRuntime(config, log, {
    poolSize: processPoolSize(config.databasePoolSize, role.processes),
  });
  await loadSigningKey(runtime);
  // Every process drops a product's cached feed candidates when any process changes them (feed-cache.ts).
  await runtime.database.listen(FEED_CHANNEL, onFeedChange(runtime.db));
  await runtime.jobs.start(runtime, { workers: role.workers && runsJobs });
  const server = await listen(runtime, slot !== null);
  // Under a parent, the parent serves METRICS_PORT with every process's sum.
  const metricsServer = slot === null ? await listenForMetrics(runtime, server) : null;
  const pool = runtime.database.pool();
  const parent = slot === null ? null : linkToParent(runtime.metrics);
  log.info("listening", {
    url: `http://${config.host}:${server.port}`,
    app_url: config.appUrl,
    database: runtime.database.kind,
    // This process's share of DATABASE_POOL_SIZE (none on the embedded database).
    ...(pool && { database_pool: pool.max }),
    workers: role.workers && runsJobs,
    ...(slot === null ? { processes: 1 } : { process: slot, pid: process.pid }),
    ...(role.note !== undefined && { processes_note: role.note }),
    ...(config.hostFrom === "default" && { note: LOOPBACK_ONLY }),
  });
  const stopBackground = runsJobs ? await startBackground(runtime) : () => {};
  parent?.ready();

  const signal = await Promise.race([early ?? untilSignal(), ...(parent ? [parent.gone] : [])]);
  log.info("shutting down", { signal });
  stopBackground();
  metricsServer?.stop(true);
  const drained = server.stop(false);
  const timer = setTimeout(() => void server.stop(true), DRAIN_TIMEOUT_MS);
  await drained;
  clearTimeout(timer);
  await runtime.close();
  log.info("stopped");
  return 0;
}

/** The work one process does for the whole installation; returns what stops it. */
async function startBackground(runtime: Runtime): Promise<() => void> {
  const { log } = runtime;
  await printFirstStepsIfEmpty(runtime);
  const stopSweepingLeftovers = sweepReleaseLeftovers(runtime);
  // In the background: a missing digest only delays that file's electron-updater feed entry.
  void backfillSha512(runtime).catch((error: unknown) =>
    log.warn("sha512 backfill failed", { error: errorFields(error) }),
  );
  const stops = [
    stopSweepingLeftovers,
    sweepExpiredUploadsEvery(runtime),
    sweepExpiredSessionsEvery(runtime),
    dropExpiredKeysEvery(runtime),
    sweepDeadMachinesEvery(runtime),
    sweepOldUpdateChecksEvery(runtime),
    keepUsageEvery(runtime),
    // On the embedded database `depot backup` takes its snapshot through this process (docs/operators.md:
    // Backups), and the administrative commands (user:create, token:create…) run here (cli/admin-action.ts).
    startControlSocket(runtime, runAdminCommand(runtime)),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** No answer goes out unsigned: a signing key that cannot be opened stops start-up (naming APP_KEY). */
async function loadSigningKey(runtime: Runtime) {
  try {
    await runtime.signing.load();
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/**
 * Starts the HTTP server; an address that cannot be listened on closes the runtime and names PORT or HOST.
 * `shared`: one of a parent's processes, which share the port (SO_REUSEPORT; the parent checked it was
 * free first). Otherwise reusePort stays off: a second instance on the same port must fail loudly.
 */
async function listen(runtime: Runtime, shared: boolean) {
  const { port, host } = runtime.config;
  try {
    const { server } = buildApp(runtime).listen({ port, hostname: host, reusePort: shared });
    if (!server) throw new Error("the HTTP server did not start");
    return server;
  } catch (error) {
    await runtime.close();
    throw listenStartupError(error, host, port) ?? error;
  }
}

/** METRICS_PORT's listener; one that cannot listen stops start-up like the main port does. */
async function listenForMetrics(runtime: Runtime, server: { stop(force: boolean): unknown }) {
  try {
    return startMetricsServer(runtime.config, runtime.metrics);
  } catch (error) {
    server.stop(true);
    await runtime.close();
    throw error;
  }
}

/**
 * First run: no user yet, so a setup link with a new code is printed for the person at the terminal.
 * The code is the credential for creating the first admin: the log, which others may read (a log
 * shipper, a shared dashboard), says only that a link exists and until when (features/setup).
 */
async function printFirstStepsIfEmpty(runtime: Runtime) {
  if (!(await setupIsOpen(runtime))) return;
  const { url, expiresAt } = await newSetupLink(runtime);
  const link = { url, expires_at: expiresAt.toISOString() };
  runtime.log.info("no users yet: a link to create the first admin is printed on stderr", {
    setup_link_expires_at: link.expires_at,
  });
  const [intro, ...rest] = setupLinkLines(link);
  process.stderr.write(["", `No users yet. ${intro}`, ...rest, ""].join("\n"));
}
