/**
 * PostgreSQL going away under a listening depot, through a TCP proxy between the two: restarted
 * (every connection closed, new ones refused) or unreachable (connections accepted and never
 * answered, as a network that drops packets). Liveness answers 503 within a second; the API answers a
 * quick 503 JSON with Retry-After, never a hang or a 500, and changes nothing; once the proxy passes
 * again every request succeeds within seconds, without a restart.
 *
 * The database is opened as `depot serve` opens it (openDatabase), with DATABASE_CONNECT_TIMEOUT_SECONDS
 * and DATABASE_STATEMENT_TIMEOUT_SECONDS at 2 (not 1: on a loaded machine a new connection can take
 * a second), so every bound below is a few seconds. The embedded database has no network to lose:
 * PostgreSQL only.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { loadConfig } from "../src/config.ts";
import { selectRows } from "../src/db/rows.ts";
import { openDatabase } from "../src/runtime.ts";
import { bearer, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { startTcpProxy } from "./helpers/tcp-proxy.ts";

setDefaultTimeout(60_000);

const ENV = {
  DATABASE_CONNECT_TIMEOUT_SECONDS: "2",
  DATABASE_STATEMENT_TIMEOUT_SECONDS: "2",
  // Fewer connections than a burst has requests, so that some wait for one (the default is 20).
  DATABASE_POOL_SIZE: "10",
};
/** Liveness promises an answer within a second. */
const HEALTH_BOUND_MS = 1000;
/**
 * Any other request, at these settings: 2 s waiting for a connection, 2 s connecting, 3 s on a
 * connection that stopped answering (statement timeout + 1 s), with room for a loaded machine. Without
 * the bounds such requests hung for as long as the outage lasted, or longer.
 */
const REQUEST_BOUND_MS = 8000;
/** How soon after the proxy passes again every request must succeed. */
const RECOVERY_BOUND_MS = 5000;

let fresh: TestDatabase;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let t: TestApp;
let base: string;
let w: LicenseWorld;
let licenseKey: string;
let vendorToken: string;
let dataDir: string;
const recorder = recordingLogger("warn");

interface Answer {
  status: number;
  ms: number;
  type: string | null;
  retryAfter: string | null;
  body: unknown;
}

/** One request with its time; a request unanswered after 15 s is an answer too (status 0), so a hang fails the assertions rather than the test's timeout. */
async function timed(path: string, init: RequestInit = {}): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    return {
      status: response.status,
      ms: performance.now() - started,
      type: response.headers.get("content-type"),
      retryAfter: response.headers.get("retry-after"),
      body: text.startsWith("{") ? JSON.parse(text) : text,
    };
  } catch (error) {
    return { status: 0, ms: performance.now() - started, type: null, retryAfter: null, body: String(error) };
  }
}

const health = () => timed("/api/health");
const validation = () =>
  timed("/api/v1/licenses/validate", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: licenseKey }),
  });
const productList = () => timed("/api/products", { headers: bearer(vendorToken) });
/** A write: creating a license must leave nothing behind when it fails. */
const licenseCreation = () =>
  timed("/api/v1/licenses", {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": w.globalKey },
    body: JSON.stringify({
      ownerId: String(w.owner.id),
      creatorId: String(w.creatorA.id),
      productId: String(w.productA.id),
      maxIps: 7,
    }),
  });

/** Many requests at once, more than the pool has connections, of every kind. */
const burst = () =>
  Promise.all([
    ...Array.from({ length: 12 }, validation),
    productList(),
    productList(),
    licenseCreation(),
    health(),
    health(),
  ]);

const UNAVAILABLE = { message: "Database unavailable." };

/** What every answer during an outage must be: a JSON 503 that says to come back, in time. */
function expectUnavailable(answers: Answer[]) {
  for (const answer of answers) {
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 503, body: UNAVAILABLE });
    expect(answer.type).toStartWith("application/json");
    expect(answer.retryAfter).toBe("5");
    expect(answer.ms).toBeLessThan(REQUEST_BOUND_MS);
  }
}

async function expectHealthUnavailableWithinASecond() {
  const answers = await Promise.all([health(), health(), health()]);
  for (const answer of answers) {
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 503, body: UNAVAILABLE });
    expect(answer.ms).toBeLessThan(HEALTH_BOUND_MS);
  }
}

/** After the proxy passes again: requests succeed within seconds, then every one of a burst does. */
async function expectRecovered(restoredAt: number) {
  for (;;) {
    const answer = await validation();
    if (answer.status === 200) break;
    expect([0, 503]).toContain(answer.status);
    expect(performance.now() - restoredAt).toBeLessThan(RECOVERY_BOUND_MS);
    await Bun.sleep(100);
  }
  const answers = await Promise.all([
    ...Array.from({ length: 12 }, validation),
    productList(),
    productList(),
    health(),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual(Array(15).fill(200));
  expect(answers.filter((answer) => answer.ms > RECOVERY_BOUND_MS)).toEqual([]);
  expect(answers[0]?.body).toMatchObject({ valid: true, code: "VALID" });
}

/** No license was created by a request that failed during the outage. */
async function expectNothingCreated() {
  const rows = await selectRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM licenses WHERE max_ips = 7`,
  );
  expect(rows).toEqual([{ n: 0 }]);
}

/** Nothing during an outage is a server error: each failure was logged as the database being away. */
function expectNoServerErrors() {
  expect(recorder.lines.filter((line) => line.msg === "request failed")).toEqual([]);
}

describe.if(onPostgres)("PostgreSQL going away (through a TCP proxy)", () => {
  beforeAll(async () => {
    fresh = await freshDatabase();
    const direct = new URL(fresh.url ?? "");
    proxy = await startTcpProxy({ hostname: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.port = String(proxy.port);
    dataDir = mkdtempSync(join(tmpdir(), "depot-outage-"));
    const env = { ...ENV, DATABASE_URL: viaProxy.toString(), DATA_DIR: dataDir };
    const database = await openDatabase(loadConfig(env), recorder.log);
    t = await startTestApp({ database, env, log: recorder.log });
    base = t.listen();
    w = await licenseWorld(t.ctx);
    licenseKey = (await licenseIn(t, w)).key;
    vendorToken = await tokenFor(t.ctx, w.creatorA);
  });

  afterAll(async () => {
    proxy?.restore();
    await t?.close();
    proxy?.cut();
    await fresh?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("before: every request answers", async () => {
    const answers = await Promise.all([validation(), productList(), health()]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });

  test("a restart (connections closed, new ones refused): 503 JSON at once, then back within seconds", async () => {
    proxy.cut();
    await expectHealthUnavailableWithinASecond();
    // Several rounds: the driver's reconnect delay grows with every refused attempt.
    const until = performance.now() + 4000;
    while (performance.now() < until) expectUnavailable(await burst());
    proxy.restore();
    await expectRecovered(performance.now());
    await expectNothingCreated();
    expectNoServerErrors();
    const logged = recorder.lines.filter((line) => line.msg === "database unavailable");
    expect(logged.length).toBeGreaterThan(0);
    expect(logged[0]).toMatchObject({ level: "warn", error: { name: "DatabaseError" } });
    // The driver's code says what happened, where a log once said only "DatabaseError".
    const codes = new Set(logged.map((line) => (line.error as { code?: string }).code));
    expect([...codes].every((code) => typeof code === "string")).toBe(true);
    expect(codes.has("ECONNREFUSED") || codes.has("CONNECTION_CLOSED")).toBe(true);
  });

  test("a network that drops packets (connections accepted, never answered): 503 JSON within the bounds, then back within seconds", async () => {
    // Open connections first, so that some are in the pool when the network goes.
    await Promise.all(Array.from({ length: 10 }, validation));
    recorder.lines.length = 0;
    proxy.blackhole();
    await expectHealthUnavailableWithinASecond();
    expectUnavailable(await burst());
    expectUnavailable(await burst());
    proxy.restore();
    await expectRecovered(performance.now());
    await expectNothingCreated();
    expectNoServerErrors();
    const codes = new Set(
      recorder.lines
        .filter((line) => line.msg === "database unavailable")
        .map((line) => (line.error as { code?: string }).code),
    );
    // Connections that stopped answering were given up, as were queries waiting for one.
    expect(codes.has("ANSWER_TIMEOUT")).toBe(true);
  });
});
