import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { versionPublished } from "../src/features/versions/jobs.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { cliEnv, depot, startServer, stderrLines } from "./helpers/cli.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { type Exposition, parseExposition, sampleValue, seriesOf } from "./helpers/prometheus.ts";
import { publishedVersion, publishMultipart } from "./helpers/publish.ts";

/**
 * Prometheus metrics (docs/operators.md, Metrics): `GET /metrics` behind METRICS_TOKEN on the main port, and
 * METRICS_PORT's own listener; what they count, through a listening server on a real database.
 */

setDefaultTimeout(30_000);

const MAIN = join(import.meta.dir, "../src/main.ts");
/** `depot <args>` as a long-running process of its own. */
const spawnDepot = (args: string[], env: Record<string, string>) =>
  Bun.spawn([process.execPath, MAIN, ...args], { env: cliEnv(env), stdout: "ignore", stderr: "ignore" });

const TOKEN = "scrape-me-0123456789abcdef";
const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

let t: TestApp;
let base: string;
let w: Awaited<ReturnType<typeof world>>;

async function world(app: TestApp) {
  const vendor = await createUser(app.ctx, { role: "vendor" });
  const owner = await createUser(app.ctx);
  return {
    vendor,
    owner,
    vendorToken: await tokenFor(app.ctx, vendor),
    product: await createProduct(app.ctx, vendor),
    otherProduct: await createProduct(app.ctx, vendor),
    apiKey: (await apiKeyFor(app.ctx, null)).key,
  };
}

beforeAll(async () => {
  t = await startTestApp({ env: { METRICS_TOKEN: TOKEN }, jobs: "workers" });
  w = await world(t);
  base = t.listen();
}, 60_000);
afterAll(() => t.close(), 30_000);

async function scrape(): Promise<Exposition> {
  const response = await fetch(`${base}/metrics`, { headers: bearer(TOKEN) });
  expect(response.status).toBe(200);
  const exposition = parseExposition(await response.text());
  expect(exposition.malformed).toEqual([]);
  return exposition;
}

const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
  fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", "x-api-key": w.apiKey },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

async function newLicense(fields: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const response = await api("/api/v1/licenses", {
    method: "POST",
    body: {
      ownerId: String(w.owner.id),
      creatorId: String(w.vendor.id),
      productId: String(w.product.id),
      ...fields,
    },
  });
  expect(response.status).toBe(201);
  return readJson(response);
}

const validate = async (body: Record<string, unknown>, endpoint = "validate", apiKey?: string) => {
  const response = await fetch(`${base}/api/v1/licenses/${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(apiKey ? { "x-api-key": apiKey } : {}) },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await readJson(response)).code as string;
};

describe("the exposition", () => {
  test("is Prometheus's text format with depot's metrics and the process's", async () => {
    await fetch(`${base}/api/health`);
    const response = await fetch(`${base}/metrics`, { headers: bearer(TOKEN) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(CONTENT_TYPE);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-request-id")).toBeString();
    const exposition = parseExposition(await response.text());
    expect(exposition.malformed).toEqual([]);
    expect(Object.fromEntries([...exposition.types].filter(([name]) => name.startsWith("depot_")))).toEqual({
      depot_http_requests_total: "counter",
      depot_http_request_duration_seconds: "histogram",
      depot_license_validations_total: "counter",
      depot_release_uploads_total: "counter",
      depot_release_upload_bytes_total: "counter",
      depot_release_downloads_total: "counter",
      depot_release_download_bytes_total: "counter",
      depot_jobs_total: "counter",
      depot_job_duration_seconds: "histogram",
      depot_job_queue_jobs: "gauge",
      depot_http_processes: "gauge",
      // The connection pool: PostgreSQL only (the embedded database has none).
      ...(onPostgres && {
        depot_db_pool_max_connections: "gauge",
        depot_db_pool_connections: "gauge",
        depot_db_pool_waiting_queries: "gauge",
      }),
    });
    // prom-client's process metrics
    expect(exposition.types.get("process_cpu_user_seconds_total")).toBe("counter");
    expect(exposition.types.get("process_resident_memory_bytes")).toBe("gauge");
    expect(exposition.types.get("nodejs_heap_size_used_bytes")).toBe("gauge");
    // Left out: Bun walks the heap for them, stalling every scrape.
    expect(exposition.types.has("nodejs_heap_space_size_used_bytes")).toBe(false);
    expect(sampleValue(exposition, "process_resident_memory_bytes")).toBeGreaterThan(1024 * 1024);

    const health = { route: "/api/health", method: "GET", status: "200" };
    const count = sampleValue(exposition, "depot_http_requests_total", health);
    expect(count).toBeGreaterThanOrEqual(1);
    // The histogram saw the same requests: its +Inf bucket and its count equal the counter.
    expect(sampleValue(exposition, "depot_http_request_duration_seconds_count", health)).toBe(count);
    expect(
      sampleValue(exposition, "depot_http_request_duration_seconds_bucket", { ...health, le: "+Inf" }),
    ).toBe(count);
    expect(sampleValue(exposition, "depot_http_request_duration_seconds_sum", health)).toBeGreaterThan(0);
  });

  test("the queue depth is reported per registered queue and state", async () => {
    const exposition = await scrape();
    for (const queue of ["version.published", "webhook.delivery", "notification.email"]) {
      for (const state of ["ready", "deferred", "active"]) {
        const [series, ...more] = seriesOf(exposition, "depot_job_queue_jobs", { queue, state });
        expect(more).toEqual([]);
        expect(series?.value).toBeGreaterThanOrEqual(0);
      }
    }
  });
});

const POOL_STATES = ["idle", "busy", "full", "reserved", "connecting", "closed", "ending"];

/** The pool series of one scrape, by state, with the pool's size and the waiting queries. */
function poolOf(exposition: Exposition) {
  const states: Record<string, number> = {};
  for (const series of seriesOf(exposition, "depot_db_pool_connections")) {
    states[series.labels.state ?? ""] = series.value;
  }
  expect(Object.keys(states).sort()).toEqual([...POOL_STATES].sort());
  const max = sampleValue(exposition, "depot_db_pool_max_connections");
  // Every connection is in exactly one state.
  expect(Object.values(states).reduce((a, b) => a + b, 0)).toBe(max);
  return { max, states, waiting: sampleValue(exposition, "depot_db_pool_waiting_queries") };
}

/** Scrapes until `done` holds for the pool (or 10 s pass) and returns the last reading. */
async function poolUntil(done: (pool: ReturnType<typeof poolOf>) => boolean) {
  const deadline = Date.now() + 10_000;
  let pool = poolOf(await scrape());
  while (!done(pool) && Date.now() < deadline) {
    await Bun.sleep(20);
    pool = poolOf(await scrape());
  }
  return pool;
}

describe("the database pool", () => {
  test.if(!onPostgres)("the embedded database has no pool and no pool series", async () => {
    expect(t.ctx.database.pool()).toBeNull();
    const exposition = await scrape();
    expect(exposition.samples.filter((s) => s.name.startsWith("depot_db_pool_"))).toEqual([]);
  });

  test.if(onPostgres)(
    "its size, connections by state and waiting queries, as they are at the scrape",
    async () => {
      const db = t.ctx.db;
      const { max, states } = poolOf(await scrape());
      expect(max).toBe(5); // freshDatabase's pool
      for (const state of POOL_STATES) expect(states[state]).toBeGreaterThanOrEqual(0);

      // Every connection opened, then a slow query on one of them: it shows as busy.
      await Promise.all(Array.from({ length: max }, () => db.execute(sql`SELECT pg_sleep(0.05)`)));
      // (drizzle sends a query when it is awaited: `then` starts it without waiting here.)
      const slow = db.execute(sql`SELECT pg_sleep(1)`).then(() => {});
      const running = await poolUntil((pool) => (pool.states.busy ?? 0) >= 1);
      expect(running.states.busy).toBeGreaterThanOrEqual(1);
      await slow;

      // Every connection held by a transaction: a query has none to run on and waits.
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const held = Array.from({ length: max }, () =>
        db.transaction(async (tx) => {
          await tx.execute(sql`SELECT 1`);
          await gate;
        }),
      );
      const saturated = await poolUntil((pool) => pool.states.reserved === max);
      expect(saturated.states.reserved).toBe(max);
      const waiting = db.execute(sql`SELECT 1`).then(() => {});
      expect((await poolUntil((pool) => pool.waiting >= 1)).waiting).toBeGreaterThanOrEqual(1);

      release();
      await Promise.all([...held, waiting]);
      const after = await poolUntil((pool) => pool.states.idle === max);
      expect(after.waiting).toBe(0);
      expect(after.states.reserved).toBe(0);
      expect(after.states.idle).toBe(max);
    },
  );
});

describe("who may read it", () => {
  test("the right bearer token (any case of the scheme) gets it; a wrong or missing one a 401", async () => {
    expect((await fetch(`${base}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } })).status).toBe(
      200,
    );
    const attempts: Record<string, string>[] = [
      {},
      bearer(`${TOKEN}x`),
      bearer(TOKEN.slice(0, -1)),
      bearer(""),
      { authorization: TOKEN },
      { authorization: `Basic ${btoa(`x:${TOKEN}`)}` },
      { "x-api-key": w.apiKey },
      bearer(w.vendorToken),
    ];
    for (const headers of attempts) {
      const response = await fetch(`${base}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  });

  test("without METRICS_TOKEN the route answers 404 and nothing is collected", async () => {
    const plain = await startTestApp();
    try {
      expect(plain.ctx.metrics).toBeNull();
      const url = plain.listen();
      const response = await fetch(`${url}/metrics`, { headers: bearer(TOKEN) });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Route not found." });
    } finally {
      await plain.close();
    }
  });
});

describe("what it counts", () => {
  test("validations by endpoint and code", async () => {
    const valid = await newLicense({ maxIps: 1 });
    const revoked = await newLicense();
    expect((await api(`/api/v1/licenses/${revoked.id}`, { method: "DELETE" })).status).toBe(204);
    const expired = await newLicense({ expires: new Date(Date.now() - 60_000).toISOString() });
    const full = await newLicense({ maxIps: 1 });
    const before = await scrape();

    expect(await validate({ key: valid.key })).toBe("VALID");
    expect(await validate({ key: valid.key })).toBe("VALID");
    expect(await validate({ key: "no-such-key-at-all" })).toBe("NOT_FOUND");
    expect(await validate({ key: revoked.key })).toBe("REVOKED");
    expect(await validate({ key: expired.key })).toBe("EXPIRED");
    expect(await validate({ key: valid.key, productId: String(w.otherProduct.id) })).toBe("PRODUCT_MISMATCH");
    expect(await validate({ key: full.key, ip: "203.0.113.1" }, "validate", w.apiKey)).toBe("VALID");
    expect(await validate({ key: full.key, ip: "203.0.113.2" }, "validate", w.apiKey)).toBe("TOO_MANY_IPS");
    expect(await validate({ key: valid.key }, "checkout")).toBe("VALID");
    expect(await validate({ key: revoked.key }, "checkout")).toBe("REVOKED");

    const after = await scrape();
    const delta = (endpoint: string, code: string) =>
      sampleValue(after, "depot_license_validations_total", { endpoint, code }) -
      sampleValue(before, "depot_license_validations_total", { endpoint, code });
    expect(delta("validate", "VALID")).toBe(3);
    expect(delta("validate", "NOT_FOUND")).toBe(1);
    expect(delta("validate", "REVOKED")).toBe(1);
    expect(delta("validate", "EXPIRED")).toBe(1);
    expect(delta("validate", "PRODUCT_MISMATCH")).toBe(1);
    expect(delta("validate", "TOO_MANY_IPS")).toBe(1);
    expect(delta("checkout", "VALID")).toBe(1);
    expect(delta("checkout", "REVOKED")).toBe(1);
    const route = { route: "/api/v1/licenses/validate", method: "POST", status: "200" };
    expect(
      sampleValue(after, "depot_http_requests_total", route) -
        sampleValue(before, "depot_http_requests_total", route),
    ).toBe(8);
  });

  test("an upload and downloads (whole and by range), with their bytes", async () => {
    const bytes = "a release file of 31 bytes ...\n";
    expect(bytes.length).toBe(31);
    const before = await scrape();
    const version = await publishedVersion(base, w.vendorToken, w.product.id, { name: "1.0.0", bytes });
    const url = `${base}/api/products/${w.product.id}/versions/${version.id}/download`;
    const whole = await fetch(url, { headers: bearer(w.vendorToken) });
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe(bytes);
    const part = await fetch(url, { headers: { ...bearer(w.vendorToken), range: "bytes=2-8" } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe(bytes.slice(2, 9));
    // Neither a HEAD nor a 304 sends the file.
    expect((await fetch(url, { method: "HEAD", headers: bearer(w.vendorToken) })).status).toBe(200);
    const cached = await fetch(url, {
      headers: { ...bearer(w.vendorToken), "if-none-match": `"${version.sha256}"` },
    });
    expect(cached.status).toBe(304);
    // The same file again is no new upload.
    const again = await publishMultipart(base, w.vendorToken, w.product.id, { name: "1.0.0", bytes });
    expect(again.status).toBe(200);
    expect((await readJson(again)).data.id).toBe(version.id);

    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(delta("depot_release_uploads_total")).toBe(1);
    expect(delta("depot_release_upload_bytes_total")).toBe(31);
    expect(delta("depot_release_downloads_total", { status: "200" })).toBe(1);
    expect(delta("depot_release_downloads_total", { status: "206" })).toBe(1);
    expect(delta("depot_release_download_bytes_total")).toBe(31 + 7);
    const download = { route: "/api/products/:product/versions/:version/download", method: "GET" };
    expect(delta("depot_http_requests_total", { ...download, status: "206" })).toBe(1);
    expect(delta("depot_http_requests_total", { ...download, status: "304" })).toBe(1);
  });

  test("jobs by queue and outcome, from the runner", async () => {
    const labels = { queue: versionPublished.name, outcome: "payload rejected" };
    const before = sampleValue(await scrape(), "depot_jobs_total", labels);
    // A payload the queue refuses: the runner settles it without side effects, and counts it.
    await t.ctx.jobs.send(versionPublished, { not: "a version" } as never);
    const deadline = Date.now() + 15_000;
    let after = before;
    while (after === before && Date.now() < deadline) {
      await Bun.sleep(200);
      after = sampleValue(await scrape(), "depot_jobs_total", labels);
    }
    expect(after).toBe(before + 1);
    const exposition = await scrape();
    expect(
      sampleValue(exposition, "depot_job_duration_seconds_count", { queue: versionPublished.name }),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe("cardinality", () => {
  test("requests to many ids make one series per route pattern; unmatched paths share one label", async () => {
    const made = await Promise.all([1, 2, 3, 4, 5].map(() => newLicense()));
    const unknown = Array.from({ length: 5 }, () => crypto.randomUUID());
    const before = await scrape();
    for (const license of made) expect((await api(`/api/v1/licenses/${license.id}`)).status).toBe(200);
    for (const id of unknown) expect((await api(`/api/v1/licenses/${id}`)).status).toBe(404);
    for (const id of unknown) expect((await fetch(`${base}/no/such/${id}`)).status).toBe(404);
    const after = await scrape();

    const byId = { route: "/api/v1/licenses/:id", method: "GET" };
    expect(
      seriesOf(after, "depot_http_requests_total", byId)
        .map((s) => s.labels.status)
        .sort(),
    ).toEqual(["200", "404"]);
    const delta = (labels: Record<string, string>) =>
      sampleValue(after, "depot_http_requests_total", labels) -
      sampleValue(before, "depot_http_requests_total", labels);
    expect(delta({ ...byId, status: "200" })).toBe(5);
    expect(delta({ ...byId, status: "404" })).toBe(5);
    expect(delta({ route: "unmatched", method: "GET", status: "404" })).toBe(5);

    // No label anywhere holds an id, a key, an address or a raw path.
    const secrets = [...made.flatMap((l) => [l.id, l.key]), ...unknown, "127.0.0.1", "/no/such", w.apiKey];
    const values = after.samples.flatMap((s) => Object.values(s.labels));
    for (const secret of secrets) expect(values.filter((v) => v.includes(secret))).toEqual([]);
    for (const sample of seriesOf(after, "depot_http_requests_total")) {
      expect(sample.labels.route === "unmatched" || sample.labels.route?.startsWith("/")).toBe(true);
    }
  });
});

describe("METRICS_PORT", () => {
  test("a loopback listener serves /metrics without auth; the main port has no /metrics", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "depot-metrics-"));
    const metricsPort = unusedPort();
    const server = await startServer({ DATA_DIR: dataDir, METRICS_PORT: String(metricsPort) });
    try {
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      const response = await fetch(metricsUrl);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(CONTENT_TYPE);
      const exposition = parseExposition(await response.text());
      expect(exposition.malformed).toEqual([]);
      // startServer polled /api/health until it answered 200.
      expect(
        sampleValue(exposition, "depot_http_requests_total", {
          route: "/api/health",
          method: "GET",
          status: "200",
        }),
      ).toBeGreaterThanOrEqual(1);

      const other = await fetch(`http://127.0.0.1:${metricsPort}/api/health`);
      expect(other.status).toBe(404);
      expect(await readJson(other)).toEqual({ message: "Route not found." });
      const post = await fetch(metricsUrl, { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");

      const main = await fetch(`${server.url}/metrics`);
      expect(main.status).toBe(404);
      expect(await readJson(main)).toEqual({ message: "Route not found." });

      // Bound to loopback only: another address of this machine refuses the connection.
      const external = Object.values(networkInterfaces())
        .flat()
        .find((a) => a && a.family === "IPv4" && !a.internal);
      if (external) {
        const refused = await fetch(`http://${external.address}:${metricsPort}/metrics`).then(
          () => false,
          () => true,
        );
        expect(refused).toBe(true);
      }
    } finally {
      server.proc.kill("SIGTERM");
      expect(await server.proc.exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("depot worker serves its job metrics there too (and its pool's on PostgreSQL)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "depot-metrics-"));
    const metricsPort = unusedPort();
    // A database of its own on PostgreSQL, so the worker takes none of the other tests' jobs.
    const fresh = onPostgres ? await freshDatabase() : null;
    const worker = spawnDepot(["worker"], {
      DATA_DIR: dataDir,
      METRICS_PORT: String(metricsPort),
      ...(fresh?.url && { DATABASE_URL: fresh.url }),
    });
    try {
      let response: Response | null = null;
      const deadline = Date.now() + 30_000;
      while (response === null && Date.now() < deadline) {
        response = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => null);
        if (response === null) await Bun.sleep(200);
      }
      expect(response?.status).toBe(200);
      const exposition = parseExposition((await response?.text()) ?? "");
      expect(exposition.malformed).toEqual([]);
      expect(exposition.types.get("depot_jobs_total")).toBe("counter");
      expect(seriesOf(exposition, "depot_job_queue_jobs", { queue: versionPublished.name })).toHaveLength(3);
      if (fresh) {
        const pool = poolOf(exposition);
        expect(pool.max).toBe(20); // DATABASE_POOL_SIZE's default: a worker is one process and takes it whole
        expect(pool.waiting).toBe(0);
      } else {
        expect(exposition.samples.filter((s) => s.name.startsWith("depot_db_pool_"))).toEqual([]);
      }
    } finally {
      worker.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      await fresh?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  test("bad values stop start-up with one line naming the variable (exit 2)", async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { METRICS_PORT: "nine" },
        'depot: invalid configuration: METRICS_PORT: expected a whole number, got "nine"',
      ],
      [
        { METRICS_PORT: "70000" },
        "depot: invalid configuration: METRICS_PORT: expected a number from 1 to 65535, got 70000",
      ],
      [
        { METRICS_PORT: "8080", PORT: "8080" },
        "depot: invalid configuration: METRICS_PORT: must differ from PORT (8080)",
      ],
      [
        { METRICS_TOKEN: "has space" },
        "depot: invalid configuration: METRICS_TOKEN: must be printable ASCII without spaces",
      ],
    ];
    for (const [env, line] of cases) {
      const result = await depot(["healthcheck"], env);
      expect(result.code).toBe(2);
      expect(stderrLines(result)).toEqual([line]);
    }
  });

  test("a METRICS_PORT already in use stops serve with one line naming it (exit 2)", async () => {
    const blocker = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const dataDir = mkdtempSync(join(tmpdir(), "depot-metrics-"));
    try {
      const result = await depot(["serve"], {
        DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        METRICS_PORT: String(blocker.port),
      });
      expect(result.code).toBe(2);
      expect(stderrLines(result)).toEqual([
        `depot: invalid configuration: METRICS_PORT: 127.0.0.1:${blocker.port} is already in use by another process`,
      ]);
    } finally {
      blocker.stop(true);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
