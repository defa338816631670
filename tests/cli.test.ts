import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { healthUrl } from "../src/cli/healthcheck.ts";
import { readJson } from "./helpers/app.ts";
import { depot, startServer, stderrLines } from "./helpers/cli.ts";

// The commands run as users run them: separate processes on an embedded data directory.
const dataDir = mkdtempSync(join(tmpdir(), "depot-cli-"));
const env = { DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const jsonLine = (stdout: string) => {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "");
};

let admin: { id: number; name: string; email: string; role: string };
let token: string;

describe("creating commands with --json print exactly one JSON object", () => {
  test("user:create", async () => {
    const result = await depot(
      ["user:create", "--name", "Ada", "--email", "ada@example.com", "--role", "admin", "--json"],
      env,
    );
    expect(result.code).toBe(0);
    admin = jsonLine(result.stdout);
    expect(admin).toEqual({ id: expect.any(Number), name: "Ada", email: "ada@example.com", role: "admin" });
  }, 60_000);

  test("token:create", async () => {
    const result = await depot(["token:create", "--user", String(admin.id), "--name", "ci", "--json"], env);
    expect(result.code).toBe(0);
    const created = jsonLine(result.stdout);
    expect(created).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(new RegExp(`^${created.id}\\|`)),
    });
    token = created.token;
  });

  test("api-key:create, with and without a creator", async () => {
    const global = jsonLine((await depot(["api-key:create", "--json"], env)).stdout);
    expect(global).toEqual({ id: expect.any(Number), key: expect.stringMatching(/^dpk_/), creator_id: null });
    const scoped = jsonLine(
      (await depot(["api-key:create", "--creator", String(admin.id), "--json"], env)).stdout,
    );
    expect(scoped.creator_id).toBe(admin.id);
  });

  test("errors go to stderr with a non-zero exit and nothing on stdout", async () => {
    const duplicate = await depot(
      ["user:create", "--name", "Ada", "--email", "ADA@example.com", "--json"],
      env,
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stdout).toBe("");
    expect(duplicate.stderr).toContain("The email has already been taken.");

    const badEmail = await depot(["user:create", "--name", "X", "--email", "nope", "--json"], env);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toContain("The email field must be a valid email address.");

    const noUser = await depot(["token:create", "--user", "999", "--json"], env);
    expect(noUser.code).toBe(1);
    expect(noUser.stderr).toContain("User not found.");
  });
});

describe("token:create --ability", () => {
  const abilities = "*, users.view, products.manage, purchases.view, versions.publish";

  test.each([
    ["repeated", ["--user", "1", "--ability", "users.view", "--ability", "bogus"]],
    ["comma-separated", ["--user", "1", "--ability", "users.view,bogus"]],
    ["before --user is checked", ["--ability", "bogus"]],
  ])("an unknown ability (%s) is a usage error listing the valid ones", async (_, args) => {
    const result = await depot(["token:create", ...args, "--json"], env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(stderrLines(result)).toEqual([
      `depot token:create: unknown ability "bogus" (valid: ${abilities})`,
      "usage: depot token:create --user ID [--name N] [--ability A ...] [--json]",
    ]);
  });

  test("--help lists them too", async () => {
    const result = await depot(["token:create", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`--ability is one of ${abilities};`);
  });
});

describe("a mistyped option", () => {
  test.each([
    [
      "user:create",
      ["--name", "Ada", "--emial", "a@example.com"],
      "unknown option --emial (did you mean --email?)",
    ],
    ["backup", ["out.tar", "--jsno"], "unknown option --jsno (did you mean --json?)"],
    ["serve", ["--no-worker"], "unknown option --no-worker (did you mean --no-workers?)"],
    ["migrate", ["--dry-run"], "unknown option --dry-run"],
  ])(
    "depot %s names the option it is close to, then the usage (exit 2, nothing opened)",
    async (name, args, message) => {
      const result = await depot([name, ...args], env);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      const [first, usage, ...rest] = stderrLines(result);
      expect({ first, usage: usage?.startsWith("usage: depot "), rest }).toEqual({
        first: `depot ${name}: ${message}`,
        usage: true,
        rest: [],
      });
    },
  );
});

describe("the embedded database belongs to one process", () => {
  test("while serve runs, migrate stops at once and touches nothing; user:create goes through the server", async () => {
    const server = await startServer(env);
    try {
      const migrate = await depot(["migrate"], env);
      expect(migrate.code).toBe(1);
      expect(migrate.stdout).toBe("");
      expect(migrate.stderr).toContain(`in use by another depot process (pid ${server.proc.pid})`);
      // Administrative commands are run by the server itself (tests/cli-while-serving.test.ts).
      const created = await depot(["user:create", "--name", "B", "--email", "b@example.com", "--json"], env);
      expect(created.code).toBe(0);
      expect(jsonLine(created.stdout).id).toBe(admin.id + 1);
      const me = await fetch(`${server.url}/api/users/${admin.id}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).toBe(200);
      expect((await readJson(me)).data.email).toBe("ada@example.com");
      // The base URL, with or without its slash, or the full health URL.
      for (const url of [server.url, `${server.url}/`, `${server.url}/api/health`]) {
        const health = await depot(["healthcheck", "--url", url]);
        expect({ url, code: health.code, stderr: health.stderr }).toEqual({ url, code: 0, stderr: "" });
      }
    } finally {
      server.proc.kill("SIGTERM");
    }
    expect(await server.proc.exited).toBe(0);
    // Stopped, the CLI opens the database itself and sees what the server wrote.
    const after = await depot(["user:create", "--name", "C", "--email", "c@example.com", "--json"], env);
    expect(after.code).toBe(0);
    expect(jsonLine(after.stdout).id).toBe(admin.id + 2);
  }, 60_000);

  test("a pid file left by a dead process is taken over", async () => {
    writeFileSync(join(dataDir, "depot.pid"), "2147483646");
    const result = await depot(["api-key:create", "--json"], env);
    expect(result.code).toBe(0);
  });

  test("healthcheck fails when nothing answers", async () => {
    const result = await depot(["healthcheck", "--url", "http://127.0.0.1:9/api/health"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unhealthy");
  });
});

describe("healthcheck", () => {
  test("--url takes a base URL or the full health URL", () => {
    expect(healthUrl("http://depot.internal:8080")).toBe("http://depot.internal:8080/api/health");
    expect(healthUrl("http://depot.internal:8080/")).toBe("http://depot.internal:8080/api/health");
    expect(healthUrl("https://example.com/depot/")).toBe("https://example.com/depot/api/health");
    expect(healthUrl("http://depot.internal:8080/api/health")).toBe("http://depot.internal:8080/api/health");
    expect(healthUrl("http://depot.internal:8080/api/health/")).toBe("http://depot.internal:8080/api/health");
  });

  test("a --url that is not http(s) is a usage error", async () => {
    const result = await depot(["healthcheck", "--url", "depot.internal:8080"]);
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toEqual([
      'depot healthcheck: --url must be an http(s) URL, got "depot.internal:8080"',
      "usage: depot healthcheck [--ready] [--url BASE_URL]",
    ]);
  });

  test("writes nothing to disk: the working directory stays empty", async () => {
    const empty = mkdtempSync(join(tmpdir(), "depot-healthcheck-"));
    try {
      // No DATA_DIR: the default ./data would be created here if anything wrote to it.
      const noDirs = { DATA_DIR: undefined, STORAGE_DIR: undefined, PORT: "9" };
      const byDefault = await depot(["healthcheck"], noDirs, empty);
      expect(byDefault.code).toBe(1);
      expect(byDefault.stderr).toStartWith("unhealthy: http://127.0.0.1:9/api/health: ");
      const withUrl = await depot(["healthcheck", "--url", "http://127.0.0.1:9"], noDirs, empty);
      expect(withUrl.code).toBe(1);
      expect(readdirSync(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("serve --no-workers", () => {
  test.each([[["serve", "--no-workers"]], [["--no-workers"]]])(
    "%p on the embedded database is refused before anything is opened",
    async (args) => {
      const untouched = mkdtempSync(join(tmpdir(), "depot-no-workers-"));
      try {
        const result = await depot(args, { DATA_DIR: untouched });
        expect(result.code).toBe(2);
        expect(result.stdout).toBe("");
        expect(stderrLines(result)).toEqual([
          "depot serve: --no-workers needs DATABASE_URL (PostgreSQL): on the embedded database no other process can run the jobs",
        ]);
        expect(readdirSync(untouched)).toEqual([]);
      } finally {
        rmSync(untouched, { recursive: true, force: true });
      }
    },
  );
});

describe("graceful shutdown", () => {
  test("SIGTERM refuses new connections, finishes the request in flight, exits 0", async () => {
    const server = await startServer(env);
    // A body with a declared length sent in two parts, the second after SIGTERM: the request is in flight.
    const [first, second] = ['{"name":"Late Lucy",', '"email":"lucy@example.com"}'];
    const request = httpRequest(`${server.url}/api/admin/users`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(first + second)),
        authorization: `Bearer ${token}`,
      },
    });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.on("response", (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
    });
    request.write(first);
    await Bun.sleep(300);

    server.proc.kill("SIGTERM");
    await Bun.sleep(300);
    const refused = await fetch(`${server.url}/api/health`).then(
      () => "answered",
      () => "refused",
    );
    expect(refused).toBe("refused");

    request.end(second);
    const response = await inFlight;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body).data.email).toBe("lucy@example.com");
    expect(await server.proc.exited).toBe(0);
  }, 60_000);
});
