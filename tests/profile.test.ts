import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { tokenFor } from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

// The signed-in user's own name and password (PATCH /api/profile, POST /api/profile/password), over a
// real socket and database: the dashboard's session only, CSRF-checked, every refusal changing nothing.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
const DASHBOARD_ONLY = { message: "Your profile is changed in the dashboard." };

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
}, 60_000);
afterAll(() => t.close());

type Session = { cookie: string; csrf: string };
const send = (path: string, method: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const rename = (session: Session, body: unknown) =>
  send("/api/profile", "PATCH", body, sessionHeaders(session));
const changePassword = (session: Session, body: unknown) =>
  send("/api/profile/password", "POST", body, sessionHeaders(session));
const nameOf = async (id: number) => (await t.ctx.db.select().from(users).where(eq(users.id, id)))[0]?.name;
const hashOf = async (id: number) =>
  (await t.ctx.db.select().from(users).where(eq(users.id, id)))[0]?.passwordHash;

describe("PATCH /api/profile", () => {
  test("with the session: the new name (trimmed), as the user's JSON and in the session from now on", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const session = await signIn(base, user.email, PASSWORD);
    const response = await rename(session, { name: "  Ada Lovelace " });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({
      data: {
        id: user.id,
        name: "Ada Lovelace",
        email: user.email,
        role: {
          id: expect.any(Number),
          name: "customer",
          permissions: [],
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      },
    });
    const now = await fetch(`${base}/api/auth/session`, { headers: { cookie: session.cookie } });
    expect((await readJson(now)).data.user.name).toBe("Ada Lovelace");
  }, 30_000);

  test("a missing, empty, blank, too long or extra field is a 422 on that field; the name stays", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD, {});
    const session = await signIn(base, user.email, PASSWORD);
    const cases: [unknown, Record<string, string[]>][] = [
      [{}, { name: ["The name field is required."] }],
      [{ name: "" }, { name: ["The name field is required."] }],
      [{ name: "   " }, { name: ["The name field is required."] }],
      [{ name: "x".repeat(256) }, { name: ["The name field must not be greater than 255 characters."] }],
      [{ name: 7 }, { name: ["The name field must be a string."] }],
      [{ name: "Ok", email: "new@example.com" }, { email: ["The email field is prohibited."] }],
    ];
    for (const [body, errors] of cases) {
      const response = await rename(session, body);
      expect({ body, status: response.status }).toEqual({ body, status: 422 });
      const answer = await readJson(response);
      expect(answer.errors).toEqual(errors);
      expect(answer.message).toBe(Object.values(errors)[0]?.[0]);
    }
    expect(await nameOf(user.id)).toBe(user.name);
  }, 30_000);

  test("a bearer token is told to use the dashboard; no credentials 401; no CSRF token 419; nothing changes", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const session = await signIn(base, user.email, PASSWORD);
    const token = await send(
      "/api/profile",
      "PATCH",
      { name: "By token" },
      bearer(await tokenFor(t.ctx, user)),
    );
    expect(token.status).toBe(403);
    expect(await readJson(token)).toEqual(DASHBOARD_ONLY);
    const anonymous = await send("/api/profile", "PATCH", { name: "Nobody" }, {});
    expect(anonymous.status).toBe(401);
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
    const noCsrf = await send("/api/profile", "PATCH", { name: "Forged" }, { cookie: session.cookie });
    expect(noCsrf.status).toBe(419);
    expect(await readJson(noCsrf)).toEqual({ message: "CSRF token mismatch." });
    const crossSite = await send(
      "/api/profile",
      "PATCH",
      { name: "Forged" },
      {
        ...sessionHeaders(session),
        "sec-fetch-site": "cross-site",
      },
    );
    expect(crossSite.status).toBe(403);
    expect(await nameOf(user.id)).toBe(user.name);
  }, 30_000);
});

describe("POST /api/profile/password", () => {
  const NEW = "a much newer password";

  test("changes the password, keeps this session and ends the user's others; tokens keep working", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const here = await signIn(base, user.email, PASSWORD);
    const elsewhere = await signIn(base, user.email, PASSWORD);
    const token = await tokenFor(t.ctx, user);
    const response = await changePassword(here, {
      current_password: PASSWORD,
      password: NEW,
      password_confirmation: NEW,
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const stays = await fetch(`${base}/api/auth/session`, { headers: { cookie: here.cookie } });
    expect(stays.status).toBe(200);
    const ended = await fetch(`${base}/api/auth/session`, { headers: { cookie: elsewhere.cookie } });
    expect(ended.status).toBe(401);
    expect((await fetch(`${base}/api/licenses`, { headers: bearer(token) })).status).toBe(200);

    const old = await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    expect(old.status).toBe(422);
    await signIn(base, user.email, NEW);
  }, 30_000);

  test("a wrong current password is a 422 on current_password, and nothing changes", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const here = await signIn(base, user.email, PASSWORD);
    const elsewhere = await signIn(base, user.email, PASSWORD);
    const before = await hashOf(user.id);
    const response = await changePassword(here, {
      current_password: "not my password",
      password: NEW,
      password_confirmation: "something else",
    });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The password is incorrect. (and 1 more error)",
      errors: {
        current_password: ["The password is incorrect."],
        password: ["The password field confirmation does not match."],
      },
    });
    expect(await hashOf(user.id)).toBe(before);
    expect((await fetch(`${base}/api/auth/session`, { headers: { cookie: elsewhere.cookie } })).status).toBe(
      200,
    );
  }, 30_000);

  test("the new password's rules are set-password's: at least 8, at most 1024, typed twice alike", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const here = await signIn(base, user.email, PASSWORD);
    const before = await hashOf(user.id);
    const cases: [unknown, Record<string, string[]>][] = [
      [
        { current_password: PASSWORD, password: "short", password_confirmation: "short" },
        { password: ["The password field must be at least 8 characters."] },
      ],
      [
        { current_password: PASSWORD, password: "x".repeat(1025), password_confirmation: "x".repeat(1025) },
        {
          password: ["The password field must not be greater than 1024 characters."],
          password_confirmation: [
            "The password confirmation field must not be greater than 1024 characters.",
          ],
        },
      ],
      [
        { current_password: PASSWORD, password: NEW, password_confirmation: `${NEW}!` },
        { password: ["The password field confirmation does not match."] },
      ],
      [
        { password: NEW },
        {
          current_password: ["The current password field is required."],
          password: ["The password field confirmation does not match."],
          password_confirmation: ["The password confirmation field is required."],
        },
      ],
    ];
    for (const [body, errors] of cases) {
      const response = await changePassword(here, body);
      expect(response.status).toBe(422);
      expect((await readJson(response)).errors).toEqual(errors);
    }
    expect(await hashOf(user.id)).toBe(before);
  }, 30_000);

  test("guessing the current password is throttled as sign-in is: 5 wrong a minute, then 429", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const here = await signIn(base, user.email, PASSWORD);
    const before = await hashOf(user.id);
    // A mismatch with the right current password is not a guess, and does not count.
    const mismatch = { current_password: PASSWORD, password: NEW, password_confirmation: "other password" };
    for (let i = 0; i < 6; i++) expect((await changePassword(here, mismatch)).status).toBe(422);
    const guess = { current_password: "wrong guess", password: NEW, password_confirmation: NEW };
    for (let i = 0; i < 5; i++) expect((await changePassword(here, guess)).status).toBe(422);
    const right = { current_password: PASSWORD, password: NEW, password_confirmation: NEW };
    const refused = await changePassword(here, right);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await readJson(refused)).message).toMatch(
      /^Too many sign-in attempts\. Please try again in \d+ seconds\.$/,
    );
    expect(await hashOf(user.id)).toBe(before);
  }, 30_000);

  test("a bearer token is told to use the dashboard; no credentials 401; no CSRF token 419", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const here = await signIn(base, user.email, PASSWORD);
    const before = await hashOf(user.id);
    const body = { current_password: PASSWORD, password: NEW, password_confirmation: NEW };
    const token = await send("/api/profile/password", "POST", body, bearer(await tokenFor(t.ctx, user)));
    expect(token.status).toBe(403);
    expect(await readJson(token)).toEqual(DASHBOARD_ONLY);
    const anonymous = await send("/api/profile/password", "POST", body, {});
    expect(anonymous.status).toBe(401);
    const noCsrf = await send("/api/profile/password", "POST", body, { cookie: here.cookie });
    expect(noCsrf.status).toBe(419);
    expect(await hashOf(user.id)).toBe(before);
  }, 30_000);
});
