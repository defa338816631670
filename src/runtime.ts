import { resolveAppKey } from "./app-key.ts";
import type { Config } from "./config.ts";
import type { AppContext } from "./context.ts";
import { type Database, openEmbedded, openPostgres } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { migrations } from "./db/migrations.gen.ts";
import { DownloadCounter } from "./features/versions/download-counter.ts";
import { queues } from "./jobs/queues.ts";
import { JobRunner } from "./jobs/runner.ts";
import type { Logger } from "./log.ts";
import { ReleaseStore } from "./storage/releases.ts";

export interface Runtime extends AppContext {
  /** Migrations applied while opening (empty when the schema was current). */
  readonly applied: string[];
  close(): Promise<void>;
}

/** Opens the configured database, brings its schema up to date, and wires the shared context. */
export async function openRuntime(config: Config, log: Logger): Promise<Runtime> {
  const database = await openDatabase(config, log);
  try {
    return await wire(config, log, database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

export function openDatabase(config: Config, log?: Logger): Promise<Database> | Database {
  return config.databaseUrl ? openPostgres(config.databaseUrl, { log }) : openEmbedded(config.dataDir, log);
}

/** The context over an already open database (tests pass a per-file database). */
export async function wire(config: Config, log: Logger, database: Database): Promise<Runtime> {
  const applied = await migrate(database.db, migrations);
  if (applied.length > 0) log.info("migrations applied", { migrations: applied });
  const jobs = new JobRunner(database, log, queues);
  const downloads = new DownloadCounter(database.db, log);
  return {
    config,
    database,
    db: database.db,
    jobs,
    log,
    appKey: resolveAppKey(config),
    releases: new ReleaseStore(config.storageDir, log),
    downloads,
    applied,
    async close() {
      try {
        await downloads.flush();
        await jobs.stop();
      } finally {
        await database.close();
      }
    },
  };
}
