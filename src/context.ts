import type { Config } from "./config.ts";
import type { Database, Db } from "./db/client.ts";
import type { DownloadCounter } from "./features/downloads/counter.ts";
import type { SigningKeyring } from "./features/signing/keyring.ts";
import type { UsageCounter } from "./features/stats/usage-counter.ts";
import type { UpdateCheckCounter } from "./features/updates/check-counter.ts";
import type { JobRunner } from "./jobs/runner.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics/metrics.ts";
import type { ReleaseStorage } from "./storage/storage.ts";

/**
 * What services, routes, CLI commands and job handlers share. Services take `(ctx, input)`;
 * they never see Elysia's request context.
 */
export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  readonly db: Db;
  readonly jobs: JobRunner;
  readonly log: Logger;
  /** HMAC key for signed URLs and webhook secrets (APP_KEY or `$DATA_DIR/app.key`). */
  readonly appKey: string;
  /** Release files: on disk (STORAGE_DIR) or in an S3-compatible bucket (STORAGE_URL). */
  readonly releases: ReleaseStorage;
  /** The Ed25519 key that signs license answers and files (loaded by `serve` before it listens). */
  readonly signing: SigningKeyring;
  /** Download counts, written to products in batches. */
  readonly downloads: DownloadCounter;
  /** Update feed requests per day, written to update_checks in batches. */
  readonly updateChecks: UpdateCheckCounter;
  /** Validations, activations, deactivations and downloads per day, written to usage_days in batches. */
  readonly usage: UsageCounter;
  /** Prometheus instruments; null when metrics are off (no METRICS_TOKEN, no METRICS_PORT): nothing is counted. */
  readonly metrics: Metrics | null;
}
