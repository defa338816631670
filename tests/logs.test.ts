import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { sha256Hex } from "../src/features/auth/secrets.ts";
import { requestFields } from "../src/http/request-id.ts";
import { createLogger } from "../src/log.ts";
import { bearer, readJson, recordingLogger, startTestApp, type TestApp } from "./helpers/app.ts";
import { startServer } from "./helpers/cli.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";

/**
 * What depot writes to its log, read back as the JSON lines a collector would get: one line per
 * request (who, from where, the status sent, how many bytes), one per job, SQL at debug, and errors
 * without the values a failed query carried.
 */

const recorder = recordingLogger("info");
let t: TestApp;
let base: string;
let vendor: { id: number };
let vendorToken: string;
let product: { id: number };

beforeAll(async () => {
  t = await startTestApp({ jobs: "workers", log: recorder.log });
  base = t.listen();
  vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
});
afterAll(() => t.close());

/** The request lines logged since `mark`, once the after-response hooks have run. */
async function requestLines(mark: number) {
  await Bun.sleep(20);
  return recorder.lines.slice(mark).filter((line) => line.msg === "request");
}

describe("request lines", () => {
  test("user id, client address, real status and body bytes", async () => {
    const mark = recorder.lines.length;
    const response = await fetch(`${base}/api/users/${vendor.id}`, { headers: bearer(vendorToken) });
    const body = await response.text();
    expect(response.status).toBe(200);
    const [line] = await requestLines(mark);
    expect(line).toMatchObject({
      level: "info",
      method: "GET",
      path: `/api/users/${vendor.id}`,
      status: 200,
      user_id: vendor.id,
      ip: "127.0.0.1",
      bytes: Buffer.byteLength(body),
    });
    expect(line?.request_id).toBe(response.headers.get("x-request-id") ?? "");
    expect(line?.duration_ms).toBeNumber();
  });

  test("an API key request names the key; an anonymous one names nobody", async () => {
    const key = await apiKeyFor(t.ctx);
    const mark = recorder.lines.length;
    await fetch(`${base}/api/v1/licenses?page=1`, { headers: { "x-api-key": key.key } });
    await fetch(`${base}/api/health`);
    const [withKey, anonymous] = await requestLines(mark);
    expect(withKey).toMatchObject({ status: 200, api_key_id: key.id });
    expect(withKey?.user_id).toBeUndefined();
    expect(anonymous).toMatchObject({ path: "/api/health", status: 200, bytes: 15 });
    expect(anonymous?.user_id).toBeUndefined();
    expect(anonymous?.api_key_id).toBeUndefined();
  });

  test("downloads log 206 and 304 as sent, with the range's bytes, and the downloader", async () => {
    const data = await publishedVersion(base, vendorToken, product.id, {
      name: "1.0.0",
      bytes: "0123456789",
    });
    const url = `${base}/api/products/${product.id}/versions/${data.id}/download`;
    const mark = recorder.lines.length;
    const partial = await fetch(url, { headers: { ...bearer(vendorToken), range: "bytes=2-5" } });
    expect(await partial.text()).toBe("2345");
    const cached = await fetch(url, {
      headers: { ...bearer(vendorToken), "if-none-match": `"${data.sha256}"` },
    });
    expect(cached.status).toBe(304);
    const lines = (await requestLines(mark)).filter((line) => String(line.path).endsWith("/download"));
    expect(lines.map((line) => [line.status, line.bytes, line.user_id])).toEqual([
      [206, 4, vendor.id],
      [304, 0, vendor.id],
    ]);
  });
});

describe("the request line's text", () => {
  /** The line as it was written before it was built as one string: an object spread and stringified. */
  const objectLine = (time: string, fields: Record<string, unknown>, who: Record<string, unknown>) =>
    JSON.stringify({ time, level: "info", msg: "request", ...fields, ...who });

  const cases: [string, string | null, string, number | null, Record<string, unknown>][] = [
    ["/api/v1/licenses/validate", "127.0.0.1", "POST", 377, {}],
    ["/api/users/7", "::1", "GET", 0, { user_id: 7, via: "session" }],
    ['/api/"quoted"\\/é\u0001', null, "HEAD", null, { user_id: "12", api_key_id: 3 }],
    ["/api/products", "10.0.0.1", "PATCH", Number.NaN, { via: undefined, user_id: 1 }],
  ];

  test.each(cases)(
    "%s: byte for byte the line of JSON.stringify of the fields",
    (path, ip, method, bytes, who) => {
      const raw: string[] = [];
      const log = createLogger("info", (line) => raw.push(line));
      const state = { id: "a1b2-request.id:9", ip, who };
      log.infoFields("request", requestFields(state, method, path, 201, 12.345678, bytes));
      const [line] = raw;
      const time = JSON.parse(line ?? "{}").time;
      expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const fields = { request_id: state.id, method, path, status: 201, duration_ms: 12.35, bytes, ip };
      expect(line).toBe(objectLine(time, fields, who));
    },
  );

  test("above LOG_LEVEL=info nothing is written", () => {
    const raw: string[] = [];
    createLogger("warn", (line) => raw.push(line)).infoFields("request", '"status":200');
    expect(raw).toEqual([]);
  });
});

describe("job lines", () => {
  test("each job: queue, id, duration and outcome", async () => {
    const data = await publishedVersion(base, vendorToken, product.id, { name: "2.0.0", bytes: "x" });
    const deadline = Date.now() + 10_000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      await Bun.sleep(50);
      line = recorder.lines.find((l) => l.msg === "job" && l.queue === "version.published");
    }
    expect(line).toMatchObject({ level: "info", queue: "version.published", outcome: "completed", retry: 0 });
    expect(line?.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(line?.duration_ms).toBeNumber();
    expect(data.id).toBeNumber();
  });
});

describe("a failing query is logged without its parameters", () => {
  let broken: TestApp;
  const errors = recordingLogger("error");

  beforeAll(async () => {
    broken = await startTestApp({ log: errors.log });
  });
  afterAll(() => broken.close());

  test("500 to the client; the log has the statement and SQLSTATE, not the key's hash", async () => {
    const key = await apiKeyFor(broken.ctx);
    await broken.ctx.db.execute(sql`ALTER TABLE api_keys RENAME TO api_keys_moved`);
    const url = broken.listen();
    const response = await fetch(`${url}/api/v1/licenses?page=1`, { headers: { "x-api-key": key.key } });
    expect(response.status).toBe(500);
    expect(await readJson(response)).toEqual({ message: "Server Error." });

    const [line] = errors.lines.filter((l) => l.msg === "request failed");
    expect(line).toMatchObject({
      level: "error",
      path: "/api/v1/licenses",
      error: { name: "DatabaseError", code: "42P01" },
    });
    expect((line?.error as { query?: string } | undefined)?.query).toContain('from "api_keys"');
    const text = JSON.stringify(errors.lines);
    expect(text).not.toContain(sha256Hex(key.key));
    expect(text).not.toContain("params");
  });
});

describe("LOG_LEVEL=debug", () => {
  test("adds each SQL statement, without its parameters", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "depot-debug-"));
    const server = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: "debug" });
    try {
      const response = await fetch(`${server.url}/api/v1/licenses/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: "SECRT-KEYAA-BBBBB-CCCCC-DDDDD" }),
      });
      expect((await readJson(response)).code).toBe("NOT_FOUND");
    } finally {
      server.proc.kill("SIGTERM");
      await server.proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
    const lines = (await new Response(server.proc.stdout).text())
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const queries = lines.filter((line) => line.level === "debug" && line.msg === "query");
    const lookup = queries.find((line) => /\bfrom "?licenses"?/i.test(String(line.sql)));
    expect(lookup?.sql).toBeString();
    expect(JSON.stringify(queries)).not.toContain("SECRT-KEYAA");
  }, 60_000);
});
