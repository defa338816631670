import { buildApp } from "../app.ts";
import { startControlSocket } from "../control/socket.ts";
import { backfillSha512 } from "../features/artifacts/sha512-backfill.ts";
import { sweepReleaseLeftovers } from "../features/artifacts/sweep.ts";
import { sweepDeadMachinesEvery } from "../features/machines/sweep.ts";
import { sweepExpiredSessionsEvery } from "../features/sessions/sweep.ts";
import { newSetupLink, setupIsOpen } from "../features/setup/service.ts";
import { dropExpiredKeysEvery } from "../features/signing/sweep.ts";
import { keepUsageEvery } from "../features/stats/sweep.ts";
import { sweepOldUpdateChecksEvery } from "../features/updates/sweep.ts";
import { sweepExpiredUploadsEvery } from "../features/uploads/sweep.ts";
import { createLogger } from "../log.ts";
import { errorFields } from "../log-errors.ts";
import { startMetricsServer } from "../metrics/server.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { listenStartupError } from "../startup-errors.ts";
import { runAdminCommand } from "./admin-actions.ts";
import { type Command, UsageError } from "./command.ts";
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
  usage: "depot [serve] [--no-workers]",
  details: "--no-workers leaves the jobs to `depot worker` processes, so it needs DATABASE_URL (PostgreSQL).",
  options: { "no-workers": { type: "boolean" } },
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
    const runtime = await openRuntime(config, log);
    await loadSigningKey(runtime);
    await runtime.jobs.start(runtime, { workers });
    const server = await listen(runtime);
    const metricsServer = await listenForMetrics(runtime, server);
    log.info("listening", {
      url: `http://${config.host}:${server.port}`,
      app_url: config.appUrl,
      database: runtime.database.kind,
      workers,
      ...(config.hostFrom === "default" && { note: LOOPBACK_ONLY }),
    });
    await printFirstStepsIfEmpty(runtime);
    const stopSweepingLeftovers = sweepReleaseLeftovers(runtime);
    // In the background: a missing digest only delays that file's electron-updater feed entry.
    void backfillSha512(runtime).catch((error: unknown) =>
      log.warn("sha512 backfill failed", { error: errorFields(error) }),
    );
    const stopSweepingUploads = sweepExpiredUploadsEvery(runtime);
    const stopSweepingSessions = sweepExpiredSessionsEvery(runtime);
    const stopDroppingKeys = dropExpiredKeysEvery(runtime);
    const stopSweepingMachines = sweepDeadMachinesEvery(runtime);
    const stopSweepingUpdateChecks = sweepOldUpdateChecksEvery(runtime);
    const stopKeepingUsage = keepUsageEvery(runtime);
    // On the embedded database `depot backup` takes its snapshot through this process (docs/operators.md: Backups),
    // and the administrative commands (user:create, token:create…) run here (cli/admin-action.ts).
    const closeControlSocket = startControlSocket(runtime, runAdminCommand(runtime));

    const signal = await untilSignal();
    log.info("shutting down", { signal });
    stopSweepingLeftovers();
    stopSweepingUploads();
    stopSweepingSessions();
    stopDroppingKeys();
    stopSweepingMachines();
    stopSweepingUpdateChecks();
    stopKeepingUsage();
    metricsServer?.stop(true);
    closeControlSocket();
    const drained = server.stop(false);
    const timer = setTimeout(() => void server.stop(true), DRAIN_TIMEOUT_MS);
    await drained;
    clearTimeout(timer);
    await runtime.close();
    log.info("stopped");
    return 0;
  },
};

/** No answer goes out unsigned: a signing key that cannot be opened stops start-up (naming APP_KEY). */
async function loadSigningKey(runtime: Runtime) {
  try {
    await runtime.signing.load();
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

/** Starts the HTTP server; an address that cannot be listened on closes the runtime and names PORT or HOST. */
async function listen(runtime: Runtime) {
  const { port, host } = runtime.config;
  try {
    // reusePort off: a second instance on the same port must fail loudly, not share it.
    const { server } = buildApp(runtime).listen({ port, hostname: host, reusePort: false });
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
