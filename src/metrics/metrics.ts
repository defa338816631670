import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { PoolStats } from "../db/client.ts";

/** What the queue-depth gauge asks the job runner at scrape time (pg-boss's own counts). */
export interface QueueDepthSource {
  queueDepths(): Promise<{ queue: string; ready: number; deferred: number; active: number }[]>;
}

/** What the pool gauges read at scrape time: the Database (null for the embedded one, which has no pool). */
export interface PoolSource {
  pool(): PoolStats | null;
}

/** The `state` label of depot_db_pool_connections: every state a pool connection can be in. */
const POOL_STATES = ["idle", "busy", "full", "reserved", "connecting", "closed", "ending"] as const;

/** The label of a request no route matched: its raw path could be anything (bounded cardinality). */
export const UNMATCHED_ROUTE = "unmatched";

type RequestLabels = { route: string; method: string; status: string };
type ValidationLabels = { endpoint: string; code: string };

/** Sets a counter, when it is scraped, to the totals kept beside it. */
function copyCounts<L extends string>(
  counter: Counter<L>,
  series: Iterable<{ labels: Partial<Record<L, string>>; count: number }>,
): void {
  counter.reset();
  for (const { labels, count } of series) counter.inc(labels, count);
}

/** The text exposition of a scrape and its content type. */
export interface Exposition {
  body: string;
  contentType: string;
}

/** One process's metrics as prom-client's JSON, what a parent sums over its `serve` processes. */
export type MetricsSnapshot = Awaited<ReturnType<Registry["getMetricsAsJSON"]>>;

/** Latency buckets in seconds: a validation takes about a millisecond, an upload can take minutes. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/**
 * depot's Prometheus instruments, on a registry of their own (not prom-client's global one, so that
 * several apps in one process, as in the tests, do not share counters). Created only when metrics are
 * enabled: without METRICS_TOKEN or METRICS_PORT there is no instance and nothing is counted.
 *
 * Labels are only ever route patterns, methods, statuses, codes, queue names and outcomes: never an
 * id, a key or an address, so the number of series stays bounded whatever the traffic.
 */
export class Metrics {
  readonly registry = new Registry();

  /**
   * The request and validation counts, kept in plain objects and handed to prom-client when scraped:
   * prom-client hashes and checks a label set on every `inc`, even through a child from `labels()`,
   * which was most of what counting cost a request (bench/README.md, "Metrics").
   */
  readonly #requestSeries = new Map<
    string,
    { labels: RequestLabels; count: number; seconds: Histogram.Internal<keyof RequestLabels> }
  >();
  readonly #validationCounts = new Map<string, { labels: ValidationLabels; count: number }>();

  readonly #requests: Counter<keyof RequestLabels> = new Counter({
    name: "depot_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    registers: [this.registry],
    collect: (): void => copyCounts(this.#requests, this.#requestSeries.values()),
  });
  readonly #requestSeconds = new Histogram({
    name: "depot_http_request_duration_seconds",
    help: "Time from receiving a request to handing its response to the server, by route pattern, method and status.",
    labelNames: ["route", "method", "status"] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  readonly #validations: Counter<keyof ValidationLabels> = new Counter({
    name: "depot_license_validations_total",
    help: "License validations by endpoint (validate, checkout) and answer code.",
    labelNames: ["endpoint", "code"] as const,
    registers: [this.registry],
    collect: (): void => copyCounts(this.#validations, this.#validationCounts.values()),
  });
  readonly #uploads = new Counter({
    name: "depot_release_uploads_total",
    help: "Release files published (new versions).",
    registers: [this.registry],
  });
  readonly #uploadBytes = new Counter({
    name: "depot_release_upload_bytes_total",
    help: "Bytes of the release files published.",
    registers: [this.registry],
  });
  readonly #downloads = new Counter({
    name: "depot_release_downloads_total",
    help: "Release file downloads answered: 200 whole file, 206 range, 302 to the bucket (redirect mode).",
    labelNames: ["status"] as const,
    registers: [this.registry],
  });
  readonly #downloadBytes = new Counter({
    name: "depot_release_download_bytes_total",
    help: "Bytes of release files handed to the server to send (a client that hangs up early gets fewer).",
    registers: [this.registry],
  });
  readonly #jobs = new Counter({
    name: "depot_jobs_total",
    help: "Background jobs run in this process, by queue and outcome (completed, failed, payload rejected).",
    labelNames: ["queue", "outcome"] as const,
    registers: [this.registry],
  });
  readonly #jobSeconds = new Histogram({
    name: "depot_job_duration_seconds",
    help: "How long background jobs ran, by queue.",
    labelNames: ["queue"] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  /** Where a scrape's answer comes from: this registry, or (under `depot serve`'s processes) all of them. */
  #gather: () => Promise<Exposition> = async () => ({
    body: await this.registry.metrics(),
    contentType: this.registry.contentType,
  });

  constructor(queues: QueueDepthSource, database: PoolSource) {
    new Gauge({
      name: "depot_http_processes",
      help: "HTTP processes whose metrics this scrape adds up (SERVE_PROCESSES; fewer when one did not answer in time).",
      registers: [this.registry],
    }).set(1);
    new Gauge({
      name: "depot_job_queue_jobs",
      // Every process reads the same pg-boss counts: summing them over processes would multiply them.
      aggregator: "max",
      help: "Jobs waiting or running per queue and state (ready, deferred, active), as pg-boss last counted them (about every 10 s).",
      labelNames: ["queue", "state"] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        // A database outage must not fail the whole scrape: the gauge is simply empty then.
        const depths = await queues.queueDepths().catch(() => []);
        for (const { queue, ready, deferred, active } of depths) {
          this.set({ queue, state: "ready" }, ready);
          this.set({ queue, state: "deferred" }, deferred);
          this.set({ queue, state: "active" }, active);
        }
      },
    });
    this.#poolGauges(database);
    collectDefaultMetrics({ register: this.registry });
    // Bun works the heap spaces out by walking the heap: 13 ms a scrape with a few hundred thousand
    // objects, the whole process stalled meanwhile (bench/README.md, "Metrics"). The heap's own
    // totals (nodejs_heap_size_*) stay.
    for (const kind of ["total", "used", "available"]) {
      this.registry.removeSingleMetric(`nodejs_heap_space_size_${kind}_bytes`);
    }
  }

  /**
   * The PostgreSQL pool, read at scrape time. On the embedded database there is no pool and no such
   * series: a gauge without labels would otherwise be exposed as a misleading 0.
   */
  #poolGauges(database: PoolSource): void {
    const first = database.pool();
    if (first === null) return;
    new Gauge({
      name: "depot_db_pool_max_connections",
      help: "Size of the PostgreSQL connection pool that depot's queries use (pg-boss has its own).",
      registers: [this.registry],
    }).set(first.max);
    new Gauge({
      name: "depot_db_pool_connections",
      help: "PostgreSQL pool connections by state (idle, busy, full, reserved, connecting, closed, ending); they add up to depot_db_pool_max_connections.",
      labelNames: ["state"] as const,
      registers: [this.registry],
      collect() {
        const stats = database.pool();
        for (const state of POOL_STATES) this.set({ state }, stats?.[state] ?? 0);
      },
    });
    new Gauge({
      name: "depot_db_pool_waiting_queries",
      help: "Queries waiting for a PostgreSQL pool connection because none could take them (all full, reserved or connecting).",
      registers: [this.registry],
      collect() {
        this.set(database.pool()?.waiting ?? 0);
      },
    });
  }

  /** `route` is Elysia's route pattern (`/api/v1/licenses/:id`), empty when no route matched. */
  request(route: string, method: string, status: number, seconds: number): void {
    const key = `${route} ${method} ${status}`;
    let series = this.#requestSeries.get(key);
    if (series === undefined) {
      const labels = { route: route === "" ? UNMATCHED_ROUTE : route, method, status: String(status) };
      series = { labels, count: 0, seconds: this.#requestSeconds.labels(labels) };
      this.#requestSeries.set(key, series);
    }
    series.count += 1;
    series.seconds.observe(seconds);
  }

  validation(endpoint: "validate" | "checkout", code: string): void {
    const key = `${endpoint} ${code}`;
    const series = this.#validationCounts.get(key);
    if (series) series.count += 1;
    else this.#validationCounts.set(key, { labels: { endpoint, code }, count: 1 });
  }

  upload(bytes: number): void {
    this.#uploads.inc();
    this.#uploadBytes.inc(bytes);
  }

  /**
   * A download response: counted when it hands the file over (200, 206, or a 302 to the bucket), with
   * the bytes it sends itself (a redirect's go out from the bucket, unseen).
   */
  download(response: Response): void {
    if (![200, 206, 302].includes(response.status)) return;
    this.#downloads.inc({ status: String(response.status) });
    const bytes = bodyLength(response);
    if (bytes !== null) this.#downloadBytes.inc(bytes);
  }

  job(queue: string, outcome: string, seconds: number): void {
    this.#jobs.inc({ queue, outcome });
    this.#jobSeconds.observe({ queue }, seconds);
  }

  /** The text exposition format and its content type: this process's, or every serve process's. */
  exposition(): Promise<Exposition> {
    return this.#gather();
  }

  /** This process's own metrics, for the parent that adds up its serve processes'. */
  snapshot(): Promise<MetricsSnapshot> {
    return this.registry.getMetricsAsJSON();
  }

  /** Answers scrapes with what `gather` returns (the sum over every serve process) instead of this registry. */
  gatherWith(gather: () => Promise<Exposition>): void {
    this.#gather = gather;
  }
}

/**
 * Several processes' metrics as one exposition: counters and histograms summed, gauges by their
 * `aggregator` (a sum unless the gauge says otherwise), as prom-client's cluster mode does.
 */
export async function sumOfProcesses(snapshots: MetricsSnapshot[]): Promise<Exposition> {
  const registry = AggregatorRegistry.aggregate(snapshots);
  return { body: await registry.metrics(), contentType: registry.contentType };
}

/** Content-Length, or the length of the Content-Range a 206 sends. */
function bodyLength(response: Response): number | null {
  const length = response.headers.get("content-length");
  if (length !== null) return Number(length);
  const range = /^bytes (\d+)-(\d+)\//.exec(response.headers.get("content-range") ?? "");
  return range ? Number(range[2]) - Number(range[1]) + 1 : null;
}
