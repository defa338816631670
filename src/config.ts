import { resolve } from "node:path";
import { runsInContainer } from "./container.ts";

/** Everything depot reads from its environment, parsed once at boot (docs/reference/configuration.md, Configuration). */
export interface Config {
  readonly port: number;
  readonly host: string;
  /** Where `host` came from: the variable, a container (every interface), or the loopback default. */
  readonly hostFrom: "HOST" | "container" | "default";
  /** Public base URL without a trailing slash; download and pagination links start with it. */
  readonly appUrl: string;
  /** PostgreSQL connection string, or null for the embedded database in `dataDir`. */
  readonly databaseUrl: string | null;
  /** How long opening a PostgreSQL connection may take. */
  readonly databaseConnectTimeoutSeconds: number;
  /** How long one statement may take, and a query wait for a free connection (db/client.ts). */
  readonly databaseStatementTimeoutSeconds: number;
  readonly dataDir: string;
  readonly storageDir: string;
  /** Release files in an S3-compatible bucket (STORAGE_URL), or null for STORAGE_DIR on local disk. */
  readonly objectStorage: S3Settings | null;
  /** Object storage downloads: streamed through depot, or a 302 to a short-lived presigned URL. */
  readonly storageDownloads: StorageDownloads;
  /** Product images served under `/storage/` (what `cover_image_url` and gallery URLs point at). */
  readonly publicDir: string;
  /** Binaries of other platforms for `GET /client/depot?platform=` (dist/ of `npm run build:all`), or null. */
  readonly clientBinariesDir: string | null;
  /** Explicit APP_KEY, or null to use (and create once) `$DATA_DIR/app.key`. */
  readonly appKey: string | null;
  readonly maxUploadBytes: number;
  readonly maxJsonUploadBytes: number;
  /** How long a resumable upload may sit unfinished (or finished and unpublished) before it is swept. */
  readonly uploadExpiryHours: number;
  /** Resumable uploads one user may have open (neither published nor expired) at once. */
  readonly maxOpenUploads: number;
  /** The Upload-Length of those open uploads together, at most (at least MAX_UPLOAD_BYTES). */
  readonly maxOpenUploadBytes: number;
  readonly licenseDefaultMaxIps: number;
  /** New machine activations one license may make in any 24 hours (deactivating and re-activating counts). */
  readonly machineActivationsPerDay: number;
  /** How long a retired signing key stays published (and what it signed keeps verifying). */
  readonly signingKeyGraceDays: number;
  /** How often a running instance looks for a signing key rotated elsewhere. */
  readonly signingKeyRefreshSeconds: number;
  readonly trustProxy: boolean;
  /** How long a dashboard session lasts since it was last used (sliding). */
  readonly sessionLifetimeHours: number;
  /** Days of usage counts kept (update checks per day); older days are swept. */
  readonly statsRetentionDays: number;
  /** Let webhooks point at loopback and private addresses (tests, a receiver on the same network). */
  readonly webhookAllowPrivate: boolean;
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** The signing secret of the Stripe webhook endpoint (`whsec_…`); null: the endpoint answers 404. */
  readonly stripeWebhookSecret: string | null;
  /** A Stripe API key (`sk_…`/`rk_…`) that may read Checkout Sessions: fetches a session's line items; null: not fetched. */
  readonly stripeSecretKey: string | null;
  /** Stripe's API (`https://api.stripe.com`); another only for tests, a fake API on loopback. */
  readonly stripeApiUrl: string;
  readonly logLevel: LogLevel;
  /** Bearer token for `GET /metrics` on the main port; null: not served there. */
  readonly metricsToken: string | null;
  /** A second listener serving only `/metrics`, without auth; null: none. */
  readonly metricsPort: number | null;
  readonly metricsHost: string;
  /**
   * SERVE_PROCESSES: HTTP processes `depot serve` runs on PostgreSQL; null: one per core. Always one on
   * the embedded database, which belongs to one process.
   */
  readonly serveProcesses: number | null;
  /**
   * DATABASE_POOL_SIZE: the most PostgreSQL connections one `depot serve` opens for depot's own queries,
   * its HTTP processes together (each gets its share: db/pool-size.ts); pg-boss's pools are apart.
   */
  readonly databasePoolSize: number;
}

/** An S3-compatible bucket for release files (STORAGE_URL and the S3_* variables). */
export interface S3Settings {
  bucket: string;
  /** Key prefix inside the bucket, without slashes at either end ("" for none). */
  prefix: string;
  endpoint: string | null;
  region: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
  /** The key presigned redirect URLs are signed with, when not the one above (it can only read). */
  presign: { accessKeyId: string; secretAccessKey: string } | null;
}

/** Metrics are collected only when something can read them (docs/operators.md, Metrics). */
export const metricsEnabled = (config: Pick<Config, "metricsToken" | "metricsPort">) =>
  config.metricsToken !== null || config.metricsPort !== null;

export const STORAGE_DOWNLOADS = ["proxy", "redirect"] as const;
export type StorageDownloads = (typeof STORAGE_DOWNLOADS)[number];

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Bounds on every wait for PostgreSQL, so that a database that is away or a network that drops packets
 * turns into a quick 503 rather than requests that hang (docs/reference/configuration.md, Configuration).
 */
export const DATABASE_TIMEOUT_DEFAULTS = { connectSeconds: 5, statementSeconds: 10 } as const;

/**
 * DATABASE_POOL_SIZE's default: 20 connections for one process, 10 each for two, 2 each from seven
 * processes up (the floor: db/pool-size.ts). With pg-boss's pools and each process's LISTEN connection,
 * one process per core on 16 cores opens at most 67, under PostgreSQL's default max_connections of
 * 100 (docs/operators.md, Connections).
 */
export const DATABASE_POOL_SIZE_DEFAULT = 20;

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** A configuration value that cannot be used; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

/**
 * Parses the environment; throws ConfigError on the first bad value. Writes nothing: the commands that
 * use DATA_DIR and STORAGE_DIR create them (directories.ts).
 */
export function loadConfig(env: Env = process.env, inContainer = runsInContainer(env)): Config {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };

  const port = integer("PORT", read("PORT"), 8080, { min: 0, max: 65535 });
  const dataDir = resolve(read("DATA_DIR") ?? "./data");
  const storageDir = resolve(read("STORAGE_DIR") ?? `${dataDir}/releases`);
  const publicDir = resolve(read("PUBLIC_DIR") ?? `${dataDir}/public`);
  const clientBinariesDir = read("CLIENT_BINARIES_DIR");
  const databaseUrl = read("DATABASE_URL") ?? null;
  if (databaseUrl !== null) postgresUrl("DATABASE_URL", databaseUrl);
  const maxUploadBytes = byteSize("MAX_UPLOAD_BYTES", read("MAX_UPLOAD_BYTES"), 2 * GiB);
  const smtpUrl = read("SMTP_URL") ?? null;
  if (smtpUrl !== null) url("SMTP_URL", smtpUrl, ["smtp:", "smtps:"]);

  const config: Config = {
    port,
    // Like PocketBase: on a machine of its own depot is reached through a proxy or tried locally, so
    // it listens on loopback unless told otherwise; in a container it must listen on every interface.
    host: read("HOST") ?? (inContainer ? "0.0.0.0" : "127.0.0.1"),
    hostFrom: read("HOST") !== undefined ? "HOST" : inContainer ? "container" : "default",
    appUrl: url("APP_URL", read("APP_URL") ?? `http://localhost:${port}`, ["http:", "https:"]).replace(
      /\/+$/,
      "",
    ),
    databaseUrl,
    databaseConnectTimeoutSeconds: integer(
      "DATABASE_CONNECT_TIMEOUT_SECONDS",
      read("DATABASE_CONNECT_TIMEOUT_SECONDS"),
      DATABASE_TIMEOUT_DEFAULTS.connectSeconds,
      { min: 1, max: 300 },
    ),
    databaseStatementTimeoutSeconds: integer(
      "DATABASE_STATEMENT_TIMEOUT_SECONDS",
      read("DATABASE_STATEMENT_TIMEOUT_SECONDS"),
      DATABASE_TIMEOUT_DEFAULTS.statementSeconds,
      { min: 1, max: 3600 },
    ),
    databasePoolSize: integer("DATABASE_POOL_SIZE", read("DATABASE_POOL_SIZE"), DATABASE_POOL_SIZE_DEFAULT, {
      min: 1,
      max: 1000,
    }),
    dataDir,
    storageDir,
    objectStorage: objectStorage(read),
    storageDownloads: oneOf("STORAGE_DOWNLOADS", read("STORAGE_DOWNLOADS"), STORAGE_DOWNLOADS, "proxy"),
    publicDir,
    clientBinariesDir: clientBinariesDir === undefined ? null : resolve(clientBinariesDir),
    appKey: appKey(read("APP_KEY")),
    maxUploadBytes,
    maxJsonUploadBytes: byteSize("MAX_JSON_UPLOAD_BYTES", read("MAX_JSON_UPLOAD_BYTES"), 64 * MiB),
    uploadExpiryHours: integer("UPLOAD_EXPIRY_HOURS", read("UPLOAD_EXPIRY_HOURS"), 24, { min: 1, max: 720 }),
    maxOpenUploads: integer("MAX_OPEN_UPLOADS", read("MAX_OPEN_UPLOADS"), 20, { min: 1, max: 10_000 }),
    maxOpenUploadBytes: maxOpenUploadBytes(read("MAX_OPEN_UPLOAD_BYTES"), maxUploadBytes),
    licenseDefaultMaxIps: integer("LICENSE_DEFAULT_MAX_IPS", read("LICENSE_DEFAULT_MAX_IPS"), 1, { min: 1 }),
    machineActivationsPerDay: integer(
      "MACHINE_ACTIVATIONS_PER_DAY",
      read("MACHINE_ACTIVATIONS_PER_DAY"),
      20,
      {
        min: 1,
        max: 100_000,
      },
    ),
    signingKeyGraceDays: integer("SIGNING_KEY_GRACE_DAYS", read("SIGNING_KEY_GRACE_DAYS"), 30, {
      min: 1,
      max: 3650,
    }),
    signingKeyRefreshSeconds: integer(
      "SIGNING_KEY_REFRESH_SECONDS",
      read("SIGNING_KEY_REFRESH_SECONDS"),
      60,
      { min: 1, max: 86_400 },
    ),
    trustProxy: boolean("TRUST_PROXY", read("TRUST_PROXY"), false),
    sessionLifetimeHours: integer("SESSION_LIFETIME_HOURS", read("SESSION_LIFETIME_HOURS"), 12, {
      min: 1,
      max: 8760,
    }),
    statsRetentionDays: integer("STATS_RETENTION_DAYS", read("STATS_RETENTION_DAYS"), 400, {
      min: 0,
      max: 36_500,
    }),
    webhookAllowPrivate: boolean("WEBHOOK_ALLOW_PRIVATE", read("WEBHOOK_ALLOW_PRIVATE"), false),
    smtpUrl,
    mailFrom: read("MAIL_FROM") ?? "depot@localhost",
    stripeWebhookSecret: read("STRIPE_WEBHOOK_SECRET") ?? null,
    stripeSecretKey: read("STRIPE_SECRET_KEY") ?? null,
    stripeApiUrl: url("STRIPE_API_URL", read("STRIPE_API_URL") ?? "https://api.stripe.com", [
      "http:",
      "https:",
    ]),
    logLevel: oneOf("LOG_LEVEL", read("LOG_LEVEL"), LOG_LEVELS, "info"),
    metricsToken: metricsToken(read("METRICS_TOKEN")),
    metricsPort: metricsPort(read("METRICS_PORT"), port),
    metricsHost: read("METRICS_HOST") ?? "127.0.0.1",
    serveProcesses:
      read("SERVE_PROCESSES") === undefined
        ? null
        : integer("SERVE_PROCESSES", read("SERVE_PROCESSES"), 1, { min: 1, max: 1024 }),
  };
  return Object.freeze(config);
}

function integer(
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min: number; max?: number },
) {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (value < range.min || value > max) {
    throw new ConfigError(name, `expected a number from ${range.min} to ${max}, got ${raw}`);
  }
  return value;
}

/** Units a size may be written in, as the docs write them: SI (kB = 1000) and IEC (KiB = 1024). */
const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: 1024,
  mib: MiB,
  gib: GiB,
  tib: 1024 ** 4,
};

/** A size of at least one byte: `1048576`, `64 MiB`, `2GiB`, `1.5 GB`, `500MB` (any case). */
function byteSize(name: string, raw: string | undefined, fallback: number) {
  if (raw === undefined) return fallback;
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(raw.trim());
  const unit = BYTE_UNITS[(match?.[2] || "b").toLowerCase()];
  const value = match && unit ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(
      name,
      `expected a size such as 1048576, 64 MiB or 2 GiB (units B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), got "${raw}"`,
    );
  }
  return value;
}

function boolean(name: string, raw: string | undefined, fallback: boolean) {
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(lower)) return true;
  if (["0", "false", "no", "off"].includes(lower)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function oneOf<T extends string>(
  name: string,
  raw: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  if (raw === undefined) return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new ConfigError(name, `expected one of ${allowed.join(", ")}, got "${raw}"`);
}

function url(name: string, raw: string, protocols: string[]) {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(" or ")} URL, got "${raw}"`);
  }
  return raw;
}

function postgresUrl(name: string, raw: string) {
  const parsed = URL.canParse(raw) ? new URL(raw) : null;
  if (!parsed || !["postgres:", "postgresql:"].includes(parsed.protocol) || parsed.hostname === "") {
    throw new ConfigError(name, "expected postgres://user@host:port/database");
  }
}

/**
 * STORAGE_URL=s3://bucket/prefix, with the endpoint, region and credentials from S3_* or, failing
 * those, the AWS_* variables every S3 tool reads. Credentials left unset here fall to Bun's own lookup.
 */
function objectStorage(read: (name: string) => string | undefined): S3Settings | null {
  const raw = read("STORAGE_URL");
  if (raw === undefined) return null;
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/([^?#]*))?$/.exec(raw);
  const prefix = match?.[2]?.replace(/^\/+|\/+$/g, "") ?? "";
  if (!match?.[1] || (prefix !== "" && prefix.split("/").includes(""))) {
    throw new ConfigError("STORAGE_URL", `expected s3://bucket or s3://bucket/prefix, got "${raw}"`);
  }
  const endpointVariable = ["S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"].find((name) =>
    read(name),
  );
  const endpoint = endpointVariable
    ? url(endpointVariable, read(endpointVariable) ?? "", ["http:", "https:"])
    : null;
  return {
    bucket: match[1],
    prefix,
    endpoint,
    region: read("S3_REGION") ?? read("AWS_REGION") ?? read("AWS_DEFAULT_REGION") ?? null,
    accessKeyId: read("S3_ACCESS_KEY_ID") ?? read("AWS_ACCESS_KEY_ID") ?? null,
    secretAccessKey: read("S3_SECRET_ACCESS_KEY") ?? read("AWS_SECRET_ACCESS_KEY") ?? null,
    sessionToken: read("S3_SESSION_TOKEN") ?? read("AWS_SESSION_TOKEN") ?? null,
    presign: presignKey(read),
  };
}

/**
 * A key of its own for the redirects' presigned URLs (S3_PRESIGN_*): every URL shows the id of the
 * key that signed it, and this one can be limited to reading release files.
 */
function presignKey(read: (name: string) => string | undefined): S3Settings["presign"] {
  const accessKeyId = read("S3_PRESIGN_ACCESS_KEY_ID");
  const secretAccessKey = read("S3_PRESIGN_SECRET_ACCESS_KEY");
  if (accessKeyId === undefined && secretAccessKey === undefined) return null;
  if (!accessKeyId || !secretAccessKey) {
    const missing = accessKeyId ? "S3_PRESIGN_SECRET_ACCESS_KEY" : "S3_PRESIGN_ACCESS_KEY_ID";
    throw new ConfigError(
      missing,
      "set both S3_PRESIGN_ACCESS_KEY_ID and S3_PRESIGN_SECRET_ACCESS_KEY, or neither",
    );
  }
  return { accessKeyId, secretAccessKey };
}

function appKey(raw: string | undefined) {
  if (raw === undefined) return null;
  if (raw.length < 32) throw new ConfigError("APP_KEY", "must be at least 32 characters");
  return raw;
}

/** Sent as `Authorization: Bearer …`, so only characters a header token may hold. */
function metricsToken(raw: string | undefined) {
  if (raw === undefined) return null;
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError("METRICS_TOKEN", "must be printable ASCII without spaces");
  }
  return raw;
}

/** By default five uploads of the largest size; never less than one, or such an upload could not start. */
function maxOpenUploadBytes(raw: string | undefined, maxUploadBytes: number) {
  const value = byteSize("MAX_OPEN_UPLOAD_BYTES", raw, Math.min(5 * maxUploadBytes, Number.MAX_SAFE_INTEGER));
  if (value < maxUploadBytes) {
    throw new ConfigError(
      "MAX_OPEN_UPLOAD_BYTES",
      `must be at least MAX_UPLOAD_BYTES (${maxUploadBytes}), got ${value}`,
    );
  }
  return value;
}

function metricsPort(raw: string | undefined, port: number) {
  if (raw === undefined) return null;
  const value = integer("METRICS_PORT", raw, 0, { min: 1, max: 65535 });
  if (value === port) throw new ConfigError("METRICS_PORT", `must differ from PORT (${port})`);
  return value;
}
