import { createLogger } from "../log.ts";
import { startMetricsServer } from "../metrics/server.ts";
import { openRuntime } from "../runtime.ts";
import type { Command } from "./command.ts";
import { untilSignal } from "./signals.ts";

export const workerCommand: Command = {
  name: "worker",
  summary: "job workers only",
  usage: "depot worker",
  options: {},
  async run(config) {
    const log = createLogger(config.logLevel);
    const runtime = await openRuntime(config, log);
    await runtime.jobs.start(runtime, { workers: true });
    // A worker has no HTTP API: METRICS_PORT is how its job metrics are scraped.
    let metricsServer: ReturnType<typeof startMetricsServer>;
    try {
      metricsServer = startMetricsServer(config, runtime.metrics);
    } catch (error) {
      await runtime.close();
      throw error;
    }
    log.info("worker started", { database: runtime.database.kind });
    const signal = await untilSignal();
    log.info("shutting down", { signal });
    metricsServer?.stop(true);
    await runtime.close();
    log.info("stopped");
    return 0;
  },
};
