import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { loadConfig } from "../src/config.ts";
import { licenseIps, machines } from "../src/db/schema/index.ts";
import { readJson } from "./helpers/app.ts";
import { depot, startServer } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { unusedPort } from "./helpers/ports.ts";
import { license, patchRelease, publishRelease } from "./helpers/releases.ts";
import { userWithPassword } from "./helpers/sessions.ts";

/**
 * `depot serve` with two HTTP processes on one port (SERVE_PROCESSES=2, docs/operators.md: Every
 * core). Every request goes on a connection of its own, so the kernel spreads them over both
 * processes: what one process decides, the other must agree with. The races are exact, the sign-in
 * throttle counts across processes, a key rotation and a yank reach every process, /metrics adds up
 * both, a killed process is restarted and SIGTERM stops them all.
 */

// Two processes start one after the other: on a loaded two-core machine that takes a while.
setDefaultTimeout(180_000);
const START_TIMEOUT_MS = 120_000;

const METRICS_TOKEN = "serve-processes-metrics-token-0123456789";
const PASSWORD = "correct horse battery staple";
let fresh: TestDatabase;
let dir: string;
let server: Awaited<ReturnType<typeof startServer>>;
let base: string;
let metricsPort: number;
let world: LicenseWorld;
/** Everything the server wrote on stdout (its processes' log lines), read as it comes. */
let stdout: Promise<string>;
const ctx = () => ({ db: fresh.database.db, config: loadConfig({ DATABASE_URL: fresh.url ?? "" }) });
const api = { request: (path: string, init?: RequestInit) => fetch(`${base}${path}`, init) };

/** A request on a new connection: the kernel picks the process (SO_REUSEPORT), not a kept-alive socket. */
const onNewConnection = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, keepalive: false, headers: { ...init.headers, connection: "close" } });

/** What `command` prints, a line each, without blank lines. */
const linesOf = async (command: string[]) =>
  (await new Response(Bun.spawn(command, { stdout: "pipe" }).stdout).text())
    .split("\n")
    .filter((line) => line.trim() !== "");
const pidsOf = async (command: string[]) =>
  (await linesOf(command)).flatMap((line) =>
    [...line.matchAll(/pid=(\d+)|^\s*(\d+)\s*$/g)].map((m) => Number(m[1] ?? m[2])),
  );
/** The parent's children, by their process ids. */
const children = async () =>
  (await pidsOf(["ps", "--ppid", String(server.proc.pid), "-o", "pid="])).toSorted();
/**
 * The processes that hold a listening socket on the port, one a socket; 0 for a socket no process
 * holds any more: a killed process lets go of its descriptors before the kernel closes the socket,
 * which meanwhile still takes connections (and then resets them).
 */
const listeners = async () => {
  const sockets = await linesOf(["ss", "-Hltnp", `( sport = :${server.port} )`]);
  return [...new Set(sockets.map((line) => Number(/pid=(\d+)/.exec(line)?.[1] ?? 0)))].toSorted();
};

async function scrape(url = `${base}/metrics`, headers: Record<string, string> = bearerMetrics) {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  return response.text();
}
const bearerMetrics = { authorization: `Bearer ${METRICS_TOKEN}` };
const sample = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
};
const HEALTH_200 = 'depot_http_requests_total{route="/api/health",method="GET",status="200"}';

/** Waits until `check` holds, or fails with what it last saw. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let value = await read();
  while (!check(value) && Date.now() < deadline) {
    await Bun.sleep(100);
    value = await read();
  }
  expect(check(value)).toBe(true);
  return value;
}

const processesAnswering = async () => sample(await scrape(), "depot_http_processes");

beforeAll(async () => {
  if (!onPostgres) return;
  fresh = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), "depot-processes-"));
  metricsPort = unusedPort();
  server = await startServer(
    {
      DATABASE_URL: fresh.url ?? "",
      DATA_DIR: dir,
      SERVE_PROCESSES: "2",
      // Shared by the two processes: 3 connections each, which the races below run on.
      DATABASE_POOL_SIZE: "6",
      TRUST_PROXY: "true",
      METRICS_TOKEN,
      METRICS_PORT: String(metricsPort),
      SIGNING_KEY_REFRESH_SECONDS: "1",
      LOG_LEVEL: "info",
    },
    START_TIMEOUT_MS,
  );
  base = server.url;
  stdout = new Response(server.proc.stdout).text();
  // Healthy as soon as the first process listens; the second starts after it.
  await eventually(processesAnswering, (n) => n === 2, START_TIMEOUT_MS);
  world = await licenseWorld(ctx());
});

afterAll(async () => {
  if (!onPostgres) return;
  server?.proc.kill("SIGKILL");
  await server?.proc.exited;
  await fresh?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!onPostgres)("depot serve with two processes on PostgreSQL", () => {
  test("two children listen on the one port; the parent only watches them", async () => {
    const pids = await children();
    expect(pids).toHaveLength(2);
    expect(await listeners()).toEqual(pids);
    expect(pids).not.toContain(server.proc.pid);
  });

  test("/metrics adds up both processes, on the main port and on METRICS_PORT", async () => {
    const before = sample(await scrape(), HEALTH_200) ?? 0;
    for (let i = 0; i < 40; i++) expect((await onNewConnection("/api/health")).status).toBe(200);
    const text = await scrape();
    expect(sample(text, HEALTH_200)).toBe(before + 40);
    expect(sample(text, "depot_http_processes")).toBe(2);
    const onItsPort = await scrape(`http://127.0.0.1:${metricsPort}/metrics`, {});
    expect(sample(onItsPort, HEALTH_200)).toBe(before + 40);
    expect(sample(onItsPort, "depot_http_processes")).toBe(2);
    // Each process reads the same queue counts from pg-boss: the sum would double them.
    expect(onItsPort).toMatch(/^depot_job_queue_jobs\{queue="version\.published",state="ready"\} 0$/m);
  });

  test("50 validations from 50 new addresses at once: exactly maxIps registered, 3 rounds", async () => {
    for (let round = 0; round < 3; round++) {
      const { id, key } = await licenseIn(api, world, { maxIps: 3 });
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const ip = `10.${60 + round}.${Math.floor(i / 10)}.${(i % 10) + 1}`;
          const response = await onNewConnection("/api/v1/licenses/validate", {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": ip },
            body: JSON.stringify({ key }),
          });
          return { ip, status: response.status, body: await readJson(response) };
        }),
      );
      expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      const valid = answers.filter((a) => a.body.code === "VALID");
      expect(valid).toHaveLength(3);
      expect(answers.filter((a) => a.body.code === "TOO_MANY_IPS")).toHaveLength(47);
      const rows = await fresh.database.db
        .select({ ip: licenseIps.ip })
        .from(licenseIps)
        .where(eq(licenseIps.licenseId, id));
      expect(rows.map((row) => row.ip).toSorted()).toEqual(valid.map((a) => a.ip).toSorted());
    }
  });

  test("30 activations of new machines at once on a 2-seat license: exactly 2 created, 3 rounds", async () => {
    for (let round = 0; round < 3; round++) {
      const { id, key } = await licenseIn(api, world, { maxMachines: 2 });
      const answers = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const response = await onNewConnection("/api/v1/licenses/activate", {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": `10.70.${round}.${i + 1}` },
            body: JSON.stringify({ key, fingerprint: `machine-${round}-${i}` }),
          });
          return { status: response.status, body: await readJson(response) };
        }),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
      const refused = answers.filter((a) => a.status === 409);
      expect(refused).toHaveLength(28);
      for (const answer of refused) expect(answer.body.code).toBe("TOO_MANY_MACHINES");
      const [count] = await fresh.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(machines)
        .where(eq(machines.licenseId, id));
      expect(count?.n).toBe(2);
    }
  });

  test("DATABASE_POOL_SIZE=6 is shared: 3 connections each; pg-boss's stay within its 4 + 1", async () => {
    // Each process reports its own pool's size; the scrape adds them up.
    expect(sample(await scrape(), "depot_db_pool_max_connections")).toBe(6);
    // What PostgreSQL sees after the races above filled both pools (postgres.js keeps idle connections):
    // depot's connections by name, each process's LISTEN connection apart, and pg-boss's.
    const rows = (await fresh.database.rows(
      `SELECT application_name, query ILIKE 'listen %' AS listens, count(*)::int
         FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'depot%'
         GROUP BY 1, 2`,
      [],
    )) as [string, boolean, number][];
    const count = (name: string, listens: boolean) =>
      rows.find(([app, l]) => app === name && l === listens)?.[2] ?? 0;
    expect(count("depot", false)).toBeLessThanOrEqual(6);
    expect(count("depot", false)).toBeGreaterThanOrEqual(2);
    expect(count("depot", true)).toBe(2);
    // The job runner's 4 and the other process's 1, opened as needed.
    expect(count("depot-jobs", false)).toBeGreaterThanOrEqual(1);
    expect(count("depot-jobs", false)).toBeLessThanOrEqual(5);
    // And the pools still answer: validations through both processes.
    const { key } = await licenseIn(api, world, { maxIps: 100 });
    for (let i = 0; i < 10; i++) {
      const response = await onNewConnection("/api/v1/licenses/validate", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": "10.90.0.1" },
        body: JSON.stringify({ key }),
      });
      expect({ status: response.status, code: (await readJson(response)).code }).toEqual({
        status: 200,
        code: "VALID",
      });
    }
  });

  test("12 wrong passwords for one user at once, from 12 addresses: exactly 5 refused, 7 throttled", async () => {
    const user = await userWithPassword(ctx(), PASSWORD);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        onNewConnection("/api/auth/sign-in", {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i + 1}` },
          body: JSON.stringify({ email: user.email, password: "guess" }),
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).toSorted();
    expect(statuses).toEqual([...Array(5).fill(422), ...Array(7).fill(429)]);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await readJson(answer)).toEqual({
        message: expect.stringMatching(/^Too many sign-in attempts\./),
      });
    }
  });

  test("a key rotation reaches both processes within SIGNING_KEY_REFRESH_SECONDS", async () => {
    const { key } = await licenseIn(api, world, { maxIps: 100 });
    const kidsOf = async (count: number) => {
      const kids = new Set<string>();
      for (let i = 0; i < count; i++) {
        const response = await onNewConnection("/api/v1/licenses/validate", {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": "10.80.0.1" },
          body: JSON.stringify({ key }),
        });
        expect(response.status).toBe(200);
        kids.add(/keyid="([^"]+)"/.exec(response.headers.get("signature-input") ?? "")?.[1] ?? "none");
      }
      return kids;
    };
    const before = await kidsOf(20);
    expect(before.size).toBe(1);
    const rotated = await depot(["keys:rotate", "--json"], { DATABASE_URL: fresh.url ?? "", DATA_DIR: dir });
    expect(rotated.code).toBe(0);
    const { active } = JSON.parse(rotated.stdout) as { active: { kid: string } };
    expect(before.has(active.kid)).toBe(false);
    // A process checks for a rotation at its first signature after the refresh interval, in the background.
    await Bun.sleep(1200);
    await kidsOf(20);
    await Bun.sleep(300);
    expect([...(await kidsOf(30))]).toEqual([active.kid]);
  });

  test("a yank is seen by every process's next poll within a second", async () => {
    const vendor = world.creatorA;
    const vendorToken = await tokenFor(ctx(), vendor);
    const file = (version: string) => ({
      name: `App-Setup-${version}.exe`,
      bytes: new TextEncoder().encode(`installer ${version}`),
      platform: "windows" as const,
      arch: "x86_64" as const,
    });
    await publishRelease(base, vendorToken, world.productA.id, { name: "1.0.0", files: [file("1.0.0")] });
    const newest = await publishRelease(base, vendorToken, world.productA.id, {
      name: "1.1.0",
      files: [file("1.1.0")],
    });
    const { key } = await licenseIn(api, world);
    const offered = async () => {
      const versions = new Set<string>();
      for (let i = 0; i < 30; i++) {
        const response = await onNewConnection(`/updates/${world.productA.id}/electron/latest.yml`, {
          headers: license(key),
        });
        expect(response.status).toBe(200);
        versions.add(/^version: "([^"]+)"/.exec(await response.text())?.[1] ?? "none");
      }
      return [...versions];
    };
    expect(await offered()).toEqual(["1.1.0"]);
    await patchRelease(base, vendorToken, world.productA.id, newest.id, {
      status: "yanked",
      yank_reason: "broken installer",
    });
    // Both processes answered from a warm cache (5 s TTL): only the NOTIFY sent with the yank can
    // have dropped the other process's copy this soon.
    await Bun.sleep(300);
    expect(await offered()).toEqual(["1.0.0"]);
  });

  test("a killed process is restarted; the other serves meanwhile", async () => {
    const [victim, survivor] = await children();
    process.kill(victim as number, "SIGKILL");
    await eventually(listeners, (pids) => pids.length === 1 && pids[0] === survivor, 5000);
    for (let i = 0; i < 10; i++) expect((await onNewConnection("/api/health")).status).toBe(200);
    const after = await eventually(children, (pids) => pids.length === 2 && !pids.includes(victim as number));
    expect(after).toContain(survivor as number);
    await eventually(listeners, (pids) => pids.length === 2);
    await eventually(processesAnswering, (n) => n === 2);
  });

  test("SIGTERM: every process drains and exits, then the parent, with 0", async () => {
    const pids = await children();
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });

  test("the processes' log lines reach stdout whole, each its own JSON line", async () => {
    const lines = (await stdout).split("\n");
    expect(lines.pop()).toBe("");
    const parsed = lines.map((line) => {
      try {
        return JSON.parse(line) as { msg: string; process?: number; database_pool?: number };
      } catch {
        return { msg: `not JSON: ${line.slice(0, 200)}` };
      }
    });
    expect(parsed.filter((line) => line.msg.startsWith("not JSON"))).toEqual([]);
    // Both slots' first start, and the restarted one's.
    const listening = parsed.filter((line) => line.msg === "listening").map((line) => line.process);
    expect(listening).toHaveLength(3);
    expect(new Set(listening)).toEqual(new Set([0, 1]));
    // Each says its share of DATABASE_POOL_SIZE=6.
    const pools = parsed.filter((line) => line.msg === "listening").map((line) => line.database_pool);
    expect(pools).toEqual([3, 3, 3]);
    expect(parsed.filter((line) => line.msg === "request").length).toBeGreaterThan(400);
  });
});

describe("bad values stop start-up with one line and exit 2", () => {
  test.each([
    [
      ["serve", "--processes", "0"],
      {},
      'depot serve: --processes: expected a number from 1 to 1024, got "0"',
    ],
    [
      ["serve", "--processes", "two"],
      {},
      'depot serve: --processes: expected a number from 1 to 1024, got "two"',
    ],
    [
      ["serve"],
      { SERVE_PROCESSES: "0" },
      "depot: invalid configuration: SERVE_PROCESSES: expected a number from 1 to 1024, got 0",
    ],
    [
      ["serve"],
      { SERVE_PROCESSES: "all" },
      'depot: invalid configuration: SERVE_PROCESSES: expected a whole number, got "all"',
    ],
    [
      ["serve"],
      { DATABASE_POOL_SIZE: "0" },
      "depot: invalid configuration: DATABASE_POOL_SIZE: expected a number from 1 to 1000, got 0",
    ],
  ])("%p %p", async (args, env, line) => {
    const dataDir = mkdtempSync(join(tmpdir(), "depot-processes-bad-"));
    try {
      const result = await depot(args, { DATA_DIR: dataDir, ...env });
      expect(result.code).toBe(2);
      expect(result.stderr.split("\n")[0]).toBe(line);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("on the embedded database", () => {
  test("SERVE_PROCESSES=2 serves with one process and says why at start", async () => {
    const own = mkdtempSync(join(tmpdir(), "depot-processes-embedded-"));
    try {
      const embedded = await startServer(
        { DATA_DIR: own, SERVE_PROCESSES: "2", LOG_LEVEL: "info" },
        START_TIMEOUT_MS,
      );
      const kids = await pidsOf(["ps", "--ppid", String(embedded.proc.pid), "-o", "pid="]);
      expect(kids).toEqual([]);
      embedded.proc.kill("SIGTERM");
      expect(await embedded.proc.exited).toBe(0);
      const lines = (await new Response(embedded.proc.stdout).text()).split("\n").filter(Boolean);
      const listening = lines.map((line) => JSON.parse(line)).find((line) => line.msg === "listening");
      expect(listening).toMatchObject({
        database: "embedded",
        processes: 1,
        processes_note: expect.stringContaining("the embedded database belongs to one process"),
      });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
