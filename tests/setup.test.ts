import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { sessions, users } from "../src/db/schema/index.ts";
import { setupCode, setupLink } from "../src/features/setup/code.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createUser } from "./helpers/factories.ts";
import { sessionCookieOf } from "./helpers/sessions.ts";

// First run (README, Quick start): while no user exists, the setup code `depot serve` prints creates
// the first admin and signs them in; after that the setup routes are gone. Over a real socket and
// database, each describe on a fresh database.

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

describe("a fresh server", () => {
  let t: TestApp;
  let base: string;
  let code: string;
  beforeAll(async () => {
    t = await startTestApp();
    base = t.listen();
    code = setupCode(t.ctx.appKey);
  }, 60_000);
  afterAll(() => t.close());

  test("the setup link is APP_URL/setup?code=… with a code derived from APP_KEY", () => {
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setupLink("http://depot.test/", t.ctx.appKey)).toBe(`http://depot.test/setup?code=${code}`);
    expect(setupCode("another key")).not.toBe(code);
  });

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
    const code = setupCode(t.ctx.appKey);
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
    const code = setupCode(t.ctx.appKey);
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
