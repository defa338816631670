import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../src/config.ts";
import { databaseStartupError, databaseTarget, listenStartupError } from "../src/startup-errors.ts";
import { type CliResult, depot, STACK_FRAME, stderrLines } from "./helpers/cli.ts";
import { onPostgres, testDatabaseUrl } from "./helpers/db.ts";

// A database or an address that does not work stops every command with one line naming the setting,
// exit 2, like a bad value does; the password in DATABASE_URL never shows.
const PASSWORD = "pw-must-not-show";
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "depot-startup-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A local port nothing listens on: bound by us, then released. */
function closedPort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

function expectOneLine(result: CliResult, line: string | RegExp) {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  const lines = stderrLines(result);
  expect(lines).toHaveLength(1);
  if (typeof line === "string") expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  expect(result.stderr).not.toContain(PASSWORD);
}

describe("the database in DATABASE_URL cannot be used", () => {
  const commands = [
    ["serve"],
    ["serve", "--no-workers"],
    ["worker"],
    ["migrate"],
    ["user:create", "--name", "Ada", "--email", "ada@example.com"],
    ["token:create", "--user", "1"],
    ["api-key:create"],
    ["demo:seed"],
  ];

  test("connection refused: every command that opens the database says so in one line", async () => {
    const port = closedPort();
    const env = { DATA_DIR: tempDir(), DATABASE_URL: `postgres://depot:${PASSWORD}@127.0.0.1:${port}/depot` };
    for (const args of commands) {
      const result = await depot(args, env);
      expectOneLine(
        result,
        `depot: invalid configuration: DATABASE_URL: cannot connect to 127.0.0.1:${port}/depot: ` +
          "connection refused (is PostgreSQL running and listening on that port?)",
      );
    }
  }, 60_000);

  test("a host name that does not resolve", async () => {
    const result = await depot(["migrate"], {
      DATA_DIR: tempDir(),
      DATABASE_URL: `postgres://depot:${PASSWORD}@depot-db.invalid:5432/depot`,
    });
    // ENOTFOUND, or EAI_AGAIN where no DNS server answers at all.
    expectOneLine(
      result,
      /^depot: invalid configuration: DATABASE_URL: cannot connect to depot-db\.invalid:5432\/depot: the host name (does not resolve|could not be resolved \(DNS lookup failed; try again later\))$/,
    );
  });

  test("something accepts the connection but never answers: postgres.js's connect timeout", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const started = Date.now();
      const result = await depot(["migrate"], {
        DATA_DIR: tempDir(),
        DATABASE_URL: `postgres://depot:${PASSWORD}@127.0.0.1:${silent.port}/depot`,
      });
      expectOneLine(
        result,
        `depot: invalid configuration: DATABASE_URL: cannot connect to 127.0.0.1:${silent.port}/depot: ` +
          "no answer from PostgreSQL in time (is that the right host and port?)",
      );
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      silent.stop(true);
    }
  }, 30_000);

  test.skipIf(!onPostgres)("a database that does not exist on the server (3D000)", async () => {
    const url = new URL(testDatabaseUrl ?? "");
    const name = `depot_missing_${crypto.randomUUID().slice(0, 8)}`;
    url.pathname = `/${name}`;
    url.password = PASSWORD;
    const result = await depot(["user:create", "--name", "Ada", "--email", "ada@example.com"], {
      DATA_DIR: tempDir(),
      DATABASE_URL: url.toString(),
    });
    expectOneLine(
      result,
      `depot: invalid configuration: DATABASE_URL: cannot connect to ${url.hostname}:${url.port || 5432}/${name}: ` +
        `database "${name}" does not exist`,
    );
  });

  test.skipIf(!onPostgres)("a role that does not exist (28000)", async () => {
    const url = new URL(testDatabaseUrl ?? "");
    const role = `depot_nobody_${crypto.randomUUID().slice(0, 8)}`;
    url.username = role;
    url.password = PASSWORD;
    const result = await depot(["worker"], { DATA_DIR: tempDir(), DATABASE_URL: url.toString() });
    // Trust authentication says the role does not exist; password authentication that it failed.
    expectOneLine(
      result,
      new RegExp(
        `^depot: invalid configuration: DATABASE_URL: cannot connect to ${url.hostname}:${url.port || 5432}${url.pathname}: ` +
          `login refused: (role "${role}" does not exist|password authentication failed for user "${role}")$`,
      ),
    );
  });
});

describe("the HTTP address cannot be listened on", () => {
  // One embedded data directory for both: the second start skips creating it.
  const dataDir = tempDir();

  test("PORT in use: one line, and the embedded database is released", async () => {
    const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
    try {
      const result = await depot(["serve"], {
        DATA_DIR: dataDir,
        PORT: String(taken.port),
        HOST: "127.0.0.1",
      });
      expectOneLine(
        result,
        `depot: invalid configuration: PORT: 127.0.0.1:${taken.port} is already in use by another process`,
      );
      expect(existsSync(join(dataDir, "depot.pid"))).toBe(false);
      expect(await (await fetch(`http://127.0.0.1:${taken.port}/`)).text()).toBe("taken");
    } finally {
      taken.stop(true);
    }
  }, 60_000);

  test("HOST that is not an address of this machine", async () => {
    // 203.0.113.0/24 is reserved for documentation: no machine has it.
    const result = await depot(["serve"], { DATA_DIR: dataDir, PORT: "0", HOST: "203.0.113.9" });
    expectOneLine(
      result,
      "depot: invalid configuration: HOST: cannot listen on 203.0.113.9: not an address of this machine",
    );
  }, 60_000);
});

describe("the mapping from driver errors to settings", () => {
  const url = `postgres://depot:${PASSWORD}@db.internal:6432/depot`;
  const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

  test.each([
    ["ECONNREFUSED", "connection refused (is PostgreSQL running and listening on that port?)"],
    ["ENOTFOUND", "the host name does not resolve"],
    ["EAI_AGAIN", "the host name could not be resolved (DNS lookup failed; try again later)"],
    ["ECONNRESET", "the connection was closed before PostgreSQL answered (is it PostgreSQL on that port?)"],
    ["ETIMEDOUT", "no answer from PostgreSQL in time (is that the right host and port?)"],
    ["CONNECT_TIMEOUT", "no answer from PostgreSQL in time (is that the right host and port?)"],
  ])("%s", (code, cause) => {
    const error = databaseStartupError(withCode(code), url);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.variable).toBe("DATABASE_URL");
    expect(error?.message).toBe(`DATABASE_URL: cannot connect to db.internal:6432/depot: ${cause}`);
  });

  test("the server's words for a missing database or a refused login, also under drizzle's wrapper", () => {
    const missing = withCode("3D000", 'database "depot" does not exist');
    expect(databaseStartupError(missing, url)?.message).toBe(
      'DATABASE_URL: cannot connect to db.internal:6432/depot: database "depot" does not exist',
    );
    const badPassword = withCode("28P01", 'password authentication failed for user "depot"');
    const wrapped = new Error("Failed query: SELECT 1", { cause: badPassword });
    expect(databaseStartupError(wrapped, url)?.message).toBe(
      'DATABASE_URL: cannot connect to db.internal:6432/depot: login refused: password authentication failed for user "depot"',
    );
  });

  test("anything else is not a start-up failure and keeps its stack", () => {
    expect(databaseStartupError(new Error("boom"), url)).toBeNull();
    expect(databaseStartupError(withCode("42P01", 'relation "x" does not exist'), url)).toBeNull();
    expect(databaseStartupError("a string", url)).toBeNull();
    expect(listenStartupError(withCode("ECONNREFUSED"), "0.0.0.0", 8080)).toBeNull();
  });

  test("listening: in use and forbidden name PORT, an address not ours names HOST", () => {
    expect(listenStartupError(withCode("EADDRINUSE"), "0.0.0.0", 8080)?.message).toBe(
      "PORT: 0.0.0.0:8080 is already in use by another process",
    );
    expect(listenStartupError(withCode("EACCES"), "0.0.0.0", 80)?.message).toBe(
      "PORT: not allowed to listen on port 80 (ports below 1024 need privileges)",
    );
    expect(listenStartupError(withCode("EADDRNOTAVAIL"), "10.9.9.9", 8080)?.variable).toBe("HOST");
  });

  test("the target shown is host:port/database, never the user's password", () => {
    expect(databaseTarget(url)).toBe("db.internal:6432/depot");
    expect(databaseTarget("postgres://u@db/")).toBe("db:5432");
    expect(databaseTarget("postgresql://u:p@[::1]:5433/my%20db")).toBe("[::1]:5433/my db");
    expect(databaseTarget("postgres://u:p@db/100%")).toBe("db:5432/100%");
  });
});
