import { createLogger } from "../log.ts";
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
    log.info("worker started", { database: runtime.database.kind });
    const signal = await untilSignal();
    log.info("shutting down", { signal });
    await runtime.close();
    log.info("stopped");
    return 0;
  },
};
