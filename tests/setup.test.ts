import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { count, eq, sql } from "drizzle-orm";
import { sessions, setupCodes, users } from "../src/db/schema/index.ts";
import { sha256Hex } from "../src/features/auth/secrets.ts";
import { issueSetupCode, setupLink } from "../src/features/setup/code.ts";
import { newSetupLink } from "../src/features/setup/service.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { depot, startServer, stderrLines } from "./helpers/cli.ts";
import { freshDatabase, onPostgres, type TestDatabase } from "./helpers/db.ts";
import { createUser } from "./helpers/factories.ts";
import { sessionCookieOf } from "./helpers/sessions.ts";

// First run (README, Quick start): while no user exists, the setup code `depot serve` prints creates
// the first admin and signs them in; after that the setup routes are gone. Over a real socket and
// database, each describe on a fresh database; the last one runs `depot serve` itself.

const ADMIN = { name: "First Admin", email: "first@example.com", password: "correct horse battery" };
const NOT_FOUND = { message: "Route not found." };

const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const userCount = async (t: TestApp) => (await t.ctx.db.select({ n: count() }).from(users))[0]?.n;
const sessionCount = async (t: TestApp) => (await t.ctx.db.select({ n: count() }).from(sessions))[0]?.n;

/** What POST /api/setup answers `code` (the first admin's fields otherwise right), and its body. */
async function claim(base: string, code: string, email = ADMIN.email) {
  const response = await post(base, { ...ADMIN, email, code });
  return { status: response.status, body: await readJson(response) };
}
const INVALID_CODE = {
  status: 422,
  body: { message: "The setup code is invalid.", errors: { code: ["The setup code is invalid."] } },
};

describe("setup codes", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = t.listen();
  }, 60_000);
  afterAll(() => t.close());

  test("before any code is made, none works", async () => {
    expect(await claim(base, "A".repeat(43))).toEqual(INVALID_CODE);
  }, 30_000);

  test("a link is APP_URL/setup?code=… with 32 random bytes; only their SHA-256 is kept, for an hour", async () => {
    const before = Date.now();
    const { url, expiresAt } = await newSetupLink(t.ctx);
    const code = new URL(url).searchParams.get("code") ?? "";
    expect(url).toBe(`http://depot.test/setup?code=${code}`);
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(code, "base64url")).toHaveLength(32);
    expect(expiresAt.getTime()).toBeGreaterThan(before + 3_590_000);
    expect(expiresAt.getTime()).toBeLessThan(Date.now() + 3_610_000);
    const rows = await t.ctx.db.select().from(setupCodes);
    expect(rows).toEqual([{ id: 1, codeHash: sha256Hex(code), expiresAt, createdAt: expect.any(Date) }]);
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(setupLink("http://depot.test/", code)).toBe(url);
  }, 30_000);

  test("each new code replaces the last, which stops working at once; none is made from APP_KEY", async () => {
    const first = await issueSetupCode(t.ctx);
    const second = await issueSetupCode(t.ctx);
    expect(second.code).not.toBe(first.code);
    expect(await t.ctx.db.select({ n: count() }).from(setupCodes)).toEqual([{ n: 1 }]);
    expect(await claim(base, first.code)).toEqual(INVALID_CODE);
    expect(await userCount(t)).toBe(0);
  }, 30_000);

  test("a code past its hour is refused", async () => {
    const { code } = await issueSetupCode(t.ctx);
    await t.ctx.db.execute(sql`UPDATE setup_codes SET expires_at = now() - interval '1 second'`);
    expect(await claim(base, code)).toEqual(INVALID_CODE);
    expect(await userCount(t)).toBe(0);
  }, 30_000);

  test("the code that works creates the admin and is gone with setup; a new link is then refused", async () => {
    const { code } = await issueSetupCode(t.ctx);
    expect((await claim(base, code)).status).toBe(201);
    expect(await t.ctx.db.select().from(setupCodes)).toEqual([]);
    await expect(newSetupLink(t.ctx)).rejects.toMatchObject({
      status: 409,
      message: "Setup is over: a user exists. Sign in, or set a password with depot user:password.",
    });
    expect(await t.ctx.db.select().from(setupCodes)).toEqual([]);
  }, 30_000);
});

describe("a fresh server", () => {
  let t: TestApp;
  let base: string;
  let code: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = t.listen();
    ({ code } = await issueSetupCode(t.ctx));
  }, 60_000);
  afterAll(() => t.close());

  test("GET /api/setup says setup is required; GET /setup is the dashboard's page", async () => {
    const state = await fetch(`${base}/api/setup`);
    expect(state.status).toBe(200);
    expect(state.headers.get("content-type")).toContain("application/json");
    expect(state.headers.get("cache-control")).toBe("no-store");
    expect(await readJson(state)).toEqual({ data: { setup_required: true } });
    const page = await fetch(`${base}/setup?code=${code}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("/dashboard/assets/");
  }, 30_000);

  test("without the right code nothing happens: 422 on code, no user, no session, no cookie", async () => {
    const lastChanged = code.slice(0, -1) + (code.endsWith("A") ? "B" : "A");
    for (const wrong of ["", "x", `${code}A`, lastChanged]) {
      const response = await post(base, { ...ADMIN, code: wrong });
      expect(response.status).toBe(422);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await readJson(response)).toEqual({
        message: "The setup code is invalid.",
        errors: { code: ["The setup code is invalid."] },
      });
    }
    const missing = await post(base, { name: ADMIN.name, email: ADMIN.email, password: ADMIN.password });
    expect(missing.status).toBe(422);
    expect(((await readJson(missing)) as { errors: Record<string, string[]> }).errors).toEqual({
      code: ["The code field is required."],
    });
    expect(await userCount(t)).toBe(0);
    expect(await sessionCount(t)).toBe(0);
  }, 30_000);

  test("bad fields are refused together with a wrong code, and nothing is created", async () => {
    const response = await post(base, { code: "wrong", name: "", email: "not-an-email", password: "short" });
    expect(response.status).toBe(422);
    const body = (await readJson(response)) as { message: string; errors: Record<string, string[]> };
    expect(Object.keys(body.errors).sort()).toEqual(["code", "email", "name", "password"]);
    expect(body.errors.code).toEqual(["The setup code is invalid."]);
    expect(await userCount(t)).toBe(0);
  }, 30_000);

  test("a request from another site is refused before anything else", async () => {
    const response = await post(base, { ...ADMIN, code }, { origin: "https://evil.example" });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
    expect(await userCount(t)).toBe(0);
  }, 30_000);

  test("the right code creates the admin and signs them in: 201, the session, the cookie", async () => {
    const response = await post(base, { ...ADMIN, code });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const cookieHeader = response.headers.get("set-cookie") ?? "";
    expect(cookieHeader).toMatch(/^depot_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const body = (await readJson(response)) as { data: { user: { id: number }; csrf_token: string } };
    expect(body as unknown).toEqual({
      data: {
        user: {
          id: expect.any(Number),
          name: ADMIN.name,
          email: ADMIN.email,
          role: { id: expect.any(Number), name: "admin", permissions: ["*"] },
        },
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
      },
    });
    // The cookie is a working session, as sign-in's is.
    const session = await fetch(`${base}/api/auth/session`, {
      headers: { cookie: sessionCookieOf(response) },
    });
    expect(session.status).toBe(200);
    expect(((await readJson(session)) as { data: { user: { email: string } } }).data.user.email).toBe(
      ADMIN.email,
    );
    // And so is the password: the admin can sign in again later.
    const signIn = await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: ADMIN.email, password: ADMIN.password }),
    });
    expect(signIn.status).toBe(200);
    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, body.data.user.id));
    expect(row?.passwordHash).toStartWith("$argon2");
  }, 30_000);

  test("single use: once a user exists, /setup, GET and POST /api/setup answer 404", async () => {
    const again = await post(base, { ...ADMIN, email: "second@example.com", code });
    expect(again.status).toBe(404);
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(await readJson(again)).toEqual(NOT_FOUND);
    const state = await fetch(`${base}/api/setup`);
    expect(state.status).toBe(404);
    expect(await readJson(state)).toEqual(NOT_FOUND);
    const page = await fetch(`${base}/setup?code=${code}`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toContain("application/json");
    expect(await userCount(t)).toBe(1);
  }, 30_000);
});

describe("two setups racing with the right code", () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = t.listen();
  }, 60_000);
  afterAll(() => t.close());

  test("exactly one creates an admin; the others get 404 and no session", async () => {
    const { code } = await issueSetupCode(t.ctx);
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) => post(base, { ...ADMIN, email: `racer${n}@example.com`, code })),
    );
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 404, 404, 404]);
    expect(answers.filter((response) => response.headers.get("set-cookie") !== null)).toHaveLength(1);
    expect(await userCount(t)).toBe(1);
    expect(await sessionCount(t)).toBe(1);
  }, 30_000);
});

describe("a server that already has a user", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    await createUser(t.ctx);
  }, 60_000);
  afterAll(() => t.close());

  test("the setup routes are not there, even with the right code", async () => {
    const { code } = await issueSetupCode(t.ctx);
    const state = await t.request("/api/setup");
    expect(state.status).toBe(404);
    expect(await readJson(state)).toEqual(NOT_FOUND);
    const created = await t.request("/api/setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ADMIN, code }),
    });
    expect(created.status).toBe(404);
    expect(await readJson(created)).toEqual(NOT_FOUND);
    expect(await userCount(t)).toBe(1);
  }, 30_000);
});

/**
 * Reads a running server's stderr until its setup link shows (`  APP_URL/setup?code=…`), leaving the
 * rest of the stream to be read; the first start runs initdb, which can take a while.
 */
async function printedSetupLink(reader: {
  read(): Promise<{ value?: Uint8Array; done: boolean }>;
}): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`depot serve printed no setup link:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const found = /\n {2}(http:\/\/\S+\/setup\?code=[A-Za-z0-9_-]{43})\n/.exec(text);
    if (found?.[1]) return found[1];
  }
}

const codeOf = (link: string) => new URL(link).searchParams.get("code") ?? "";

// `depot serve` as operators run it: on the embedded database (the CLI goes through the server's
// control socket), or on PostgreSQL with two instances (each process opens the database itself).
describe("the setup link depot serve prints", () => {
  const APP_URL = "http://depot.example:8080";
  const dirs: string[] = [];
  let database: TestDatabase | null = null;
  const running: Awaited<ReturnType<typeof startServer>>[] = [];
  /** One instance's environment: on PostgreSQL each its own DATA_DIR, sharing APP_KEY; else one DATA_DIR. */
  let instanceEnv: () => Record<string, string>;
  beforeAll(async () => {
    const shared = mkdtempSync(join(tmpdir(), "depot-setup-link-"));
    dirs.push(shared);
    if (onPostgres) database = await freshDatabase();
    instanceEnv = (): Record<string, string> => {
      if (!database) return { DATA_DIR: shared, APP_URL };
      const own = mkdtempSync(join(tmpdir(), "depot-setup-link-"));
      dirs.push(own);
      return {
        DATA_DIR: own,
        APP_URL,
        DATABASE_URL: database.url ?? "",
        APP_KEY: "setup-link-test-key-shared-by-both-instances",
      };
    };
  }, 60_000);
  afterAll(async () => {
    for (const server of running) server.proc.kill("SIGKILL");
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string>) {
    const server = await startServer({ ...env, LOG_LEVEL: "info" }, 90_000);
    running.push(server);
    const stderr = server.proc.stderr.getReader();
    return { ...server, env, stderr, link: await printedSetupLink(stderr) };
  }
  async function stop(server: Awaited<ReturnType<typeof serve>>) {
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    return new Response(server.proc.stdout).text();
  }

  test("a new code at each start and from depot setup:link, the last one alone working; the log never has it", async () => {
    const first = await serve(instanceEnv());
    expect(first.link).toStartWith(`${APP_URL}/setup?code=`);
    const url = (server: { url: string }) => server.url;

    // setup:link beside the running server: a new link, and the printed one stops working.
    const made = await depot(["setup:link", "--json"], first.env);
    expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: "" });
    const link = JSON.parse(made.stdout) as { url: string; expires_at: string };
    expect(Object.keys(link).sort()).toEqual(["expires_at", "url"]);
    expect(link.url).toStartWith(`${APP_URL}/setup?code=`);
    expect(codeOf(link.url)).not.toBe(codeOf(first.link));
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    expect(await claim(url(first), codeOf(first.link))).toEqual(INVALID_CODE);
    const human = await depot(["setup:link"], first.env);
    expect(human.code).toBe(0);
    const [intro, shown] = human.stdout.trimEnd().split("\n");
    expect(intro).toMatch(
      /^Open this link to create the first admin \(it works until \S+Z, and only until one exists\):$/,
    );
    expect(shown).toMatch(/^ {2}http:\/\/depot\.example:8080\/setup\?code=[A-Za-z0-9_-]{43}$/);
    const lastMade = shown?.trim() ?? "";

    // The next start makes its own: what was made before stops working. On PostgreSQL the first
    // instance keeps running and accepts the code the second printed.
    const firstLog = onPostgres ? null : await stop(first);
    const second = await serve(instanceEnv());
    expect(codeOf(second.link)).not.toBe(codeOf(lastMade));
    expect(await claim(url(second), codeOf(lastMade))).toEqual(INVALID_CODE);
    expect((await claim(url(onPostgres ? first : second), codeOf(second.link))).status).toBe(201);

    const over = await depot(["setup:link"], second.env);
    expect(over.code).toBe(1);
    expect(stderrLines(over)).toEqual([
      "depot setup:link: Setup is over: a user exists. Sign in, or set a password with depot user:password.",
    ]);

    const logs = [firstLog ?? (await stop(first)), await stop(second)].join("");
    const lines = logs.split("\n").filter((line) => line.startsWith("{"));
    const announced = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg?.startsWith("no users yet"));
    expect(announced).toEqual([
      expect.objectContaining({
        level: "info",
        msg: "no users yet: a link to create the first admin is printed on stderr",
        setup_link_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      }),
      expect.objectContaining({ msg: "no users yet: a link to create the first admin is printed on stderr" }),
    ]);
    for (const printed of [first.link, link.url, lastMade, second.link]) {
      expect(logs).not.toContain(codeOf(printed));
    }
  }, 240_000);
});
