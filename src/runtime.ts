import { resolveAppKey } from "./app-key.ts";
import { type Config, metricsEnabled } from "./config.ts";
import type { AppContext } from "./context.ts";
import { type Database, openEmbedded, openPostgres } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { migrations } from "./db/migrations.gen.ts";
import { processPoolSize } from "./db/pool-size.ts";
import { prepareDirectories, privateDirectory } from "./directories.ts";
import { DownloadCounter } from "./features/downloads/counter.ts";
import { SigningKeyring } from "./features/signing/keyring.ts";
import { UsageCounter } from "./features/stats/usage-counter.ts";
import { UpdateCheckCounter } from "./features/updates/check-counter.ts";
import { JobRunner } from "./jobs/runner.ts";
import type { Logger } from "./log.ts";
import { Metrics } from "./metrics/metrics.ts";
import { queues } from "./queues.ts";
import { databaseStartupError } from "./startup-errors.ts";
import { ReleaseStore } from "./storage/releases.ts";
import { S3ReleaseStore } from "./storage/s3.ts";

export interface Runtime extends AppContext {
  /** Migrations applied while opening (empty when the schema was current). */
  readonly applied: string[];
  close(): Promise<void>;
}

/**
 * How much longer than DATABASE_CONNECT_TIMEOUT_SECONDS PostgreSQL may take to answer the first query,
 * so that the connect timeout reports first. It also bounds the case that timeout misses: something
 * other than PostgreSQL accepts the connection and closes it, and postgres.js reconnects for ever.
 */
const FIRST_ANSWER_MARGIN_MS = 5000;

export interface OpenOptions {
  /**
   * The most connections the PostgreSQL pool for depot's queries opens. One of several `depot serve`
   * processes passes its share of DATABASE_POOL_SIZE (db/pool-size.ts). Every other command is one
   * process and takes the whole size: `depot worker` and a single `depot serve` (with or without
   * --no-workers) have that many concurrent queries to run, and `migrate` or an administrative command
   * runs one query at a time, so a larger bound costs it nothing (postgres.js connects on demand).
   */
  poolSize?: number;
}

/** Opens the configured database, brings its schema up to date, and wires the shared context. */
export async function openRuntime(config: Config, log: Logger, options: OpenOptions = {}): Promise<Runtime> {
  prepareDirectories(config, log);
  const database = await openDatabase(config, log, options);
  try {
    return await wire(config, log, database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * Opens the configured database. PostgreSQL must answer once before this returns: postgres.js connects
 * lazily, and a database that is unreachable, missing or refuses the login should stop start-up with a
 * ConfigError naming DATABASE_URL rather than a stack trace from the first migration.
 */
export async function openDatabase(
  config: Config,
  log: Logger,
  options: OpenOptions = {},
): Promise<Database> {
  if (!config.databaseUrl) return openEmbedded(privateDirectory("DATA_DIR", config.dataDir, log), log);
  const database = openPostgres(config.databaseUrl, {
    max: options.poolSize ?? processPoolSize(config.databasePoolSize, 1),
    applicationName: "depot",
    log,
    connectTimeoutSeconds: config.databaseConnectTimeoutSeconds,
    statementTimeoutSeconds: config.databaseStatementTimeoutSeconds,
  });
  try {
    await database.ping(config.databaseConnectTimeoutSeconds * 1000 + FIRST_ANSWER_MARGIN_MS);
  } catch (error) {
    await database.close();
    throw databaseStartupError(error, config.databaseUrl) ?? error;
  }
  return database;
}

/** The context over an already open database (tests pass a per-file database). */
export async function wire(config: Config, log: Logger, database: Database): Promise<Runtime> {
  const applied = await database.withoutStatementTimeout((db) => migrate(db, migrations));
  if (applied.length > 0) log.info("migrations applied", { migrations: applied });
  const jobs = new JobRunner(database, log, queues);
  const downloads = new DownloadCounter(database.db, log);
  const counting = config.statsRetentionDays > 0;
  const updateChecks = new UpdateCheckCounter(database.db, log, counting);
  const usage = new UsageCounter(database.db, log, counting);
  const appKey = resolveAppKey(config);
  return {
    config,
    database,
    db: database.db,
    jobs,
    log,
    appKey,
    signing: new SigningKeyring({ db: database.db, appKey, config, log }),
    releases: config.objectStorage
      ? new S3ReleaseStore(config.objectStorage, log)
      : new ReleaseStore(config.storageDir, log),
    downloads,
    updateChecks,
    usage,
    metrics: metricsEnabled(config) ? new Metrics(jobs, database) : null,
    applied,
    async close() {
      try {
        await downloads.flush();
        await updateChecks.flush();
        await usage.flush();
        await jobs.stop();
      } finally {
        await database.close();
      }
    },
  };
}
