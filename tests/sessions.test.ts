import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { openPostgres } from "../src/db/client.ts";
import { sessions, signInAttempts } from "../src/db/schema/index.ts";
import { sha256Hex } from "../src/features/auth/secrets.ts";
import { deleteExpiredSessions } from "../src/features/sessions/service.ts";
import { deleteSpentAttemptWindows } from "../src/features/sessions/sign-in-throttle.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { freshDatabase, onPostgres } from "./helpers/db.ts";
import { createUser } from "./helpers/factories.ts";
import { sessionCookieOf, signIn, userWithPassword } from "./helpers/sessions.ts";

// Dashboard sign-in over a real socket and database. TRUST_PROXY lets each test be its own client
// address (X-Forwarded-For), so the per-address sign-in limit of one test does not reach the others.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
let ada: Awaited<ReturnType<typeof createUser>>;
let ip = 0;
const fromNewAddress = () => ({ "x-forwarded-for": `203.0.113.${++ip}` });

beforeAll(async () => {
  t = await startTestApp({ env: { TRUST_PROXY: "true" } });
  base = t.listen();
  ada = await userWithPassword(t.ctx, PASSWORD, { role: "vendor", email: "ada.session@example.com" });
}, 60_000);
afterAll(() => t.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
const signInRequest = (email: string, password: string, headers: Record<string, string> = {}) =>
  post("/api/auth/sign-in", { email, password }, headers);
const currentSession = (cookie: string) => fetch(`${base}/api/auth/session`, { headers: { cookie } });

const BAD_CREDENTIALS = {
  message: "These credentials do not match our records.",
  errors: { email: ["These credentials do not match our records."] },
};
const UNAUTHENTICATED = { message: "Unauthenticated." };

describe("POST /api/auth/sign-in", () => {
  test("the right password: the user, their role and a CSRF token; an HttpOnly Lax cookie for 12 hours", async () => {
    const response = await signInRequest("ADA.Session@example.com", PASSWORD, fromNewAddress());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    expect(body).toEqual({
      data: {
        user: {
          id: ada.id,
          name: ada.name,
          email: "ada.session@example.com",
          role: { id: expect.any(Number), name: "vendor", permissions: expect.any(Array) },
        },
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      },
    });
    expect(body.data.role).toBeUndefined();
    const cookie = response.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^depot_session=[A-Za-z0-9_-]{43}; /);
    const attributes = cookie.split("; ").slice(1).sort();
    expect(attributes).toEqual(["HttpOnly", "Max-Age=43200", "Path=/", "SameSite=Lax"]);

    // Only the token's SHA-256 is stored, with who signed in from where.
    const token = cookie.split(";")[0]?.split("=")[1] ?? "";
    const [row] = await t.ctx.db
      .select()
      .from(sessions)
      .where(eq(sessions.id, sha256Hex(token)));
    expect(row).toMatchObject({ userId: ada.id, csrfToken: body.data.csrf_token, ip: `203.0.113.${ip}` });
    const lifetime = (row?.expiresAt.getTime() ?? 0) - Date.now();
    expect(lifetime).toBeGreaterThan(12 * 3_600_000 - 60_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3_600_000);
  }, 30_000);

  test("unknown e-mail, wrong password, a user without a password: the same 422, no cookie", async () => {
    const passwordless = await createUser(t.ctx);
    const answers = [
      await signInRequest("nobody@example.com", PASSWORD, fromNewAddress()),
      await signInRequest(ada.email, "wrong password", fromNewAddress()),
      await signInRequest(passwordless.email, PASSWORD, fromNewAddress()),
    ];
    for (const response of answers) {
      expect(response.status).toBe(422);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(await readJson(response)).toEqual(BAD_CREDENTIALS);
    }
  }, 30_000);

  test("an unknown e-mail costs about as much time as a wrong password (a dummy hash is checked)", async () => {
    const timed = async (email: string) => {
      const started = performance.now();
      const response = await signInRequest(email, "wrong password", fromNewAddress());
      expect(response.status).toBe(422);
      return performance.now() - started;
    };
    const unknown: number[] = [];
    const known: number[] = [];
    for (let i = 0; i < 3; i++) {
      unknown.push(await timed(`nobody-${i}@example.com`));
      known.push(await timed(ada.email));
    }
    const median = (list: number[]) => list.sort((a, b) => a - b)[1] ?? 0;
    // Without the dummy hash an unknown e-mail answers in about a millisecond, argon2id takes tens.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  }, 30_000);

  test("bad bodies are 422 with the fields named, never 500", async () => {
    const missing = await post("/api/auth/sign-in", { email: ada.email }, fromNewAddress());
    expect(missing.status).toBe(422);
    expect(await readJson(missing)).toEqual({
      message: "The password field is required.",
      errors: { password: ["The password field is required."] },
    });
    const extra = await post(
      "/api/auth/sign-in",
      { email: ada.email, password: PASSWORD, remember: true },
      fromNewAddress(),
    );
    expect(extra.status).toBe(422);
    expect((await readJson(extra)).errors).toHaveProperty("remember");
    const long = await post(
      "/api/auth/sign-in",
      { email: ada.email, password: "x".repeat(1025) },
      fromNewAddress(),
    );
    expect(long.status).toBe(422);
    expect((await readJson(long)).errors).toHaveProperty("password");
    const notJson = await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json", ...fromNewAddress() },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(await readJson(notJson)).toEqual({ message: "The request body could not be parsed as JSON." });
  }, 30_000);

  test.each([
    ["Origin of another site", { origin: "https://evil.example" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
  ])(
    "%s: 403, no session",
    async (_, headers) => {
      const response = await signInRequest(ada.email, PASSWORD, { ...fromNewAddress(), ...headers });
      expect(response.status).toBe(403);
      expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
      expect(response.headers.get("set-cookie")).toBeNull();
    },
    30_000,
  );

  test("from another site the body is not looked at: 403 rather than a 422 about it", async () => {
    const response = await post(
      "/api/auth/sign-in",
      { email: "", extra: true },
      {
        ...fromNewAddress(),
        origin: "https://evil.example",
      },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
    expect(response.headers.get("set-cookie")).toBeNull();
  });

  test("our own Origin and Sec-Fetch-Site same-origin or none are fine", async () => {
    for (const headers of [
      { origin: "http://depot.test", "sec-fetch-site": "same-origin" } as Record<string, string>,
      { "sec-fetch-site": "none" },
    ]) {
      const response = await signInRequest(ada.email, PASSWORD, { ...fromNewAddress(), ...headers });
      expect(response.status).toBe(200);
    }
  }, 30_000);

  test("signing in again from the same browser replaces its session", async () => {
    const first = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const second = await signIn(base, ada.email, PASSWORD, { ...fromNewAddress(), cookie: first.cookie });
    expect((await currentSession(first.cookie)).status).toBe(401);
    expect((await currentSession(second.cookie)).status).toBe(200);
  }, 30_000);
});

describe("throttling failed sign-ins", () => {
  test("the 6th failure for one e-mail in a minute is 429 with Retry-After, even with the right password", async () => {
    const victim = await userWithPassword(t.ctx, PASSWORD);
    for (let i = 0; i < 5; i++) {
      const response = await signInRequest(victim.email.toUpperCase(), "guess", fromNewAddress());
      expect(response.status).toBe(422);
    }
    for (const password of ["guess", PASSWORD]) {
      const response = await signInRequest(victim.email, password, fromNewAddress());
      expect(response.status).toBe(429);
      const wait = Number(response.headers.get("retry-after"));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
      expect(await readJson(response)).toEqual({
        message: `Too many sign-in attempts. Please try again in ${wait} seconds.`,
      });
      expect(response.headers.get("set-cookie")).toBeNull();
    }
  }, 30_000);

  test("a success resets the e-mail's count", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    for (let i = 0; i < 4; i++)
      expect((await signInRequest(user.email, "guess", fromNewAddress())).status).toBe(422);
    expect((await signInRequest(user.email, PASSWORD, fromNewAddress())).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await signInRequest(user.email, "guess", fromNewAddress())).status).toBe(422);
    expect((await signInRequest(user.email, "guess", fromNewAddress())).status).toBe(429);
  }, 30_000);

  test("one address: other e-mails are allowed until 20 failures, then everything is 429", async () => {
    const address = fromNewAddress();
    const user = await userWithPassword(t.ctx, PASSWORD);
    for (let i = 0; i < 20; i++) {
      const response = await signInRequest(`guess-${i}@example.com`, "guess", address);
      expect({ i, status: response.status }).toEqual({ i, status: 422 });
    }
    const blocked = await signInRequest(user.email, PASSWORD, address);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await readJson(blocked)).message).toStartWith("Too many sign-in attempts. Please try again in ");
    // Another address is not held back by this one.
    expect((await signInRequest(user.email, PASSWORD, fromNewAddress())).status).toBe(200);
  }, 30_000);
  // `İ` (U+0130) is where the database's lower() (C.UTF-8: `i`) and JavaScript's (`i̇`, two code
  // points) parted: the address below reached the user by one and got a count of its own by the other.
  test("an address that only a locale folds to the user's (ADMİN) is nobody: no sign-in, no count of theirs", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD, { email: `mira.${ip}@example.com` });
    const dotted = user.email.replace("mira", "MİRA");
    const refused = await signInRequest(dotted, PASSWORD, fromNewAddress());
    expect(refused.status).toBe(422);
    expect(await readJson(refused)).toEqual(BAD_CREDENTIALS);
    expect(refused.headers.get("set-cookie")).toBeNull();
    // Its failures are not the user's: the user still has all five.
    for (let i = 0; i < 5; i++) await signInRequest(dotted, "guess", fromNewAddress());
    expect((await signInRequest(user.email, PASSWORD, fromNewAddress())).status).toBe(200);
  }, 30_000);

  test("every way of typing the user's address counts against the user: five in all, then 429", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD, { email: `nina.${ip}@example.com` });
    const spellings = [user.email, user.email.toUpperCase(), user.email.replace("nina", "Nina")];
    for (let i = 0; i < 5; i++)
      expect((await signInRequest(spellings[i % 3] ?? "", "guess", fromNewAddress())).status).toBe(422);
    for (const email of spellings) {
      const refused = await signInRequest(email, PASSWORD, fromNewAddress());
      expect(refused.status).toBe(429);
    }
    const [window] = await t.ctx.db
      .select()
      .from(signInAttempts)
      .where(eq(signInAttempts.key, `sign-in:user:${user.id}`));
    expect(window?.count).toBe(5);
  }, 30_000);

  test("unknown addresses count under one form: NOBODY@ and nobody@ share their five", async () => {
    const address = `nobody.${ip}@example.com`;
    for (const email of [address, address.toUpperCase(), address, address.toUpperCase(), address])
      expect((await signInRequest(email, "guess", fromNewAddress())).status).toBe(422);
    expect((await signInRequest(address.toUpperCase(), "guess", fromNewAddress())).status).toBe(429);
  }, 30_000);

  test("the hourly sweep removes spent windows and keeps the live ones", async () => {
    const user = await userWithPassword(t.ctx, PASSWORD);
    const address = fromNewAddress();
    expect((await signInRequest(user.email, "guess", address)).status).toBe(422);
    const spent = `sign-in:user:${user.id}`;
    const live = `sign-in:ip:${address["x-forwarded-for"]}`;
    await t.ctx.db
      .update(signInAttempts)
      .set({ resetAt: sql`now() - interval '1 second'` })
      .where(eq(signInAttempts.key, spent));
    expect(await deleteSpentAttemptWindows(t.ctx)).toBeGreaterThanOrEqual(1);
    const keys = (await t.ctx.db.select({ key: signInAttempts.key }).from(signInAttempts)).map(
      (row) => row.key,
    );
    expect(keys).not.toContain(spent);
    expect(keys).toContain(live);
  }, 30_000);
});

// Two servers on one PostgreSQL database, as behind a load balancer (PGlite is one process's alone).
describe.skipIf(!onPostgres)("throttling across instances", () => {
  test("two servers on one database count together, and a restarted one forgets nothing", async () => {
    const shared = await freshDatabase();
    const env = { TRUST_PROXY: "true", APP_KEY: "sign-in-throttle-test-shared-application-key" };
    const one = await startTestApp({ database: shared.database, env });
    let other = await startTestApp({ database: openPostgres(shared.url ?? "", { max: 2 }), env });
    try {
      const user = await userWithPassword(one.ctx, PASSWORD);
      const attempt = (app: TestApp, password: string) =>
        app.request("/api/auth/sign-in", {
          method: "POST",
          headers: { "content-type": "application/json", ...fromNewAddress() },
          body: JSON.stringify({ email: user.email, password }),
        });
      // 3 wrong passwords on one server, 2 on the other: the e-mail's 5 for the minute are spent.
      for (const app of [one, other, one, other, one]) expect((await attempt(app, "guess")).status).toBe(422);
      for (const app of [one, other]) {
        const refused = await attempt(app, PASSWORD);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeWithin(1, 61);
      }
      // The other server restarts: the count is in the database, not in the process.
      await other.close();
      other = await startTestApp({ database: openPostgres(shared.url ?? "", { max: 2 }), env });
      expect((await attempt(other, PASSWORD)).status).toBe(429);
      // The minute over (moved back here rather than waited for), one right password signs in and
      // starts the e-mail afresh on both servers.
      await one.ctx.db.execute(sql`UPDATE sign_in_attempts SET reset_at = now() - interval '1 second'`);
      expect((await attempt(other, PASSWORD)).status).toBe(200);
      expect((await attempt(one, "guess")).status).toBe(422);
    } finally {
      await other.close();
      await one.close();
      await shared.drop();
    }
  }, 60_000);
});

describe("GET /api/auth/session", () => {
  test("the signed-in user, read afresh, and the same CSRF token", async () => {
    const { cookie, csrf } = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const response = await currentSession(cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({
      data: {
        user: {
          id: ada.id,
          name: ada.name,
          email: ada.email,
          role: { id: expect.any(Number), name: "vendor", permissions: expect.any(Array) },
        },
        csrf_token: csrf,
      },
    });
  }, 30_000);

  test.each([
    ["no cookie", undefined],
    ["an unknown token", "depot_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["an empty cookie", "depot_session="],
    ["another cookie only", "theme=dark"],
  ])(
    "%s: 401 Unauthenticated.",
    async (_, cookie) => {
      const response = await fetch(`${base}/api/auth/session`, { headers: cookie ? { cookie } : {} });
      expect(response.status).toBe(401);
      expect(await readJson(response)).toEqual(UNAUTHENTICATED);
    },
    30_000,
  );

  test("a bearer token is not a session", async () => {
    const { tokenFor } = await import("./helpers/factories.ts");
    const token = await tokenFor(t.ctx, ada);
    const response = await fetch(`${base}/api/auth/session`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
  }, 30_000);

  test("an expired session is 401", async () => {
    const { cookie } = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const token = cookie.split("=")[1] ?? "";
    await t.ctx.db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.id, sha256Hex(token)));
    const response = await currentSession(cookie);
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual(UNAUTHENTICATED);
  }, 30_000);

  test("the sweep deletes expired sessions and only those", async () => {
    const live = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const dead = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const idOf = (cookie: string) => sha256Hex(cookie.split("=")[1] ?? "");
    await t.ctx.db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.id, idOf(dead.cookie)));
    expect(await deleteExpiredSessions(t.ctx)).toBeGreaterThanOrEqual(1);
    const left = await t.ctx.db.select({ id: sessions.id }).from(sessions);
    expect(left.map((row) => row.id)).toContain(idOf(live.cookie));
    expect(left.map((row) => row.id)).not.toContain(idOf(dead.cookie));
    expect(await deleteExpiredSessions(t.ctx)).toBe(0);
  }, 30_000);

  test("sliding expiry: use after a minute moves expires_at on and sends the cookie again", async () => {
    const { cookie } = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const id = sha256Hex(cookie.split("=")[1] ?? "");
    const earlier = new Date(Date.now() - 2 * 3_600_000);
    await t.ctx.db
      .update(sessions)
      .set({ lastUsedAt: earlier, expiresAt: new Date(earlier.getTime() + 12 * 3_600_000) })
      .where(eq(sessions.id, id));
    const renewed = await currentSession(cookie);
    expect(renewed.status).toBe(200);
    expect(sessionCookieOf(renewed)).toBe(cookie);
    expect(renewed.headers.get("set-cookie")).toContain("Max-Age=43200");
    const [row] = await t.ctx.db.select().from(sessions).where(eq(sessions.id, id));
    expect((row?.expiresAt.getTime() ?? 0) - Date.now()).toBeGreaterThan(12 * 3_600_000 - 60_000);
    // Within the minute nothing is written and no cookie is sent.
    const again = await currentSession(cookie);
    expect(again.status).toBe(200);
    expect(again.headers.get("set-cookie")).toBeNull();
  }, 30_000);
});

describe("signing out", () => {
  const signOut = (path: string, cookie: string, csrf: string | null, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { cookie, ...(csrf === null ? {} : { "x-csrf-token": csrf }), ...headers },
    });

  test("sign-out: 204, the cookie cleared, the session gone", async () => {
    const { cookie, csrf } = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const response = await signOut("/api/auth/sign-out", cookie, csrf);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("set-cookie")?.split("; ").sort()).toEqual([
      "HttpOnly",
      "Max-Age=0",
      "Path=/",
      "SameSite=Lax",
      "depot_session=",
    ]);
    expect((await currentSession(cookie)).status).toBe(401);
    expect((await signOut("/api/auth/sign-out", cookie, csrf)).status).toBe(401);
  }, 30_000);

  test("sign-out needs the CSRF token (419) and our own site (403); the session survives both", async () => {
    const { cookie, csrf } = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    for (const [token, status, message] of [
      [null, 419, "CSRF token mismatch."],
      ["wrong", 419, "CSRF token mismatch."],
    ] as const) {
      const response = await signOut("/api/auth/sign-out", cookie, token);
      expect(response.status).toBe(status);
      expect(await readJson(response)).toEqual({ message });
    }
    const crossSite = await signOut("/api/auth/sign-out", cookie, csrf, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    expect(await readJson(crossSite)).toEqual({ message: "Cross-site request refused." });
    expect((await currentSession(cookie)).status).toBe(200);
  }, 30_000);

  test("sign-out-everywhere ends every session of the user, not other users' or bearer tokens", async () => {
    const other = await userWithPassword(t.ctx, PASSWORD);
    const otherSession = await signIn(base, other.email, PASSWORD, fromNewAddress());
    const laptop = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const phone = await signIn(base, ada.email, PASSWORD, fromNewAddress());
    const response = await signOut("/api/auth/sign-out-everywhere", phone.cookie, phone.csrf);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("set-cookie")).toStartWith("depot_session=; ");
    for (const cookie of [laptop.cookie, phone.cookie]) {
      const after = await currentSession(cookie);
      expect(after.status).toBe(401);
      expect(await readJson(after)).toEqual(UNAUTHENTICATED);
    }
    expect((await currentSession(otherSession.cookie)).status).toBe(200);
    const [left] = await t.ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(sessions)
      .where(eq(sessions.userId, ada.id));
    expect(left?.n).toBe(0);
  }, 30_000);
});

describe("APP_URL https", () => {
  test("the cookie is Secure, set and cleared", async () => {
    const secure = await startTestApp({ env: { APP_URL: "https://depot.example.com" } });
    try {
      const url = secure.listen();
      const user = await userWithPassword(secure.ctx, PASSWORD);
      const { response, cookie, csrf } = await signIn(url, user.email, PASSWORD);
      expect(response.headers.get("set-cookie")?.split("; ").slice(1).sort()).toEqual([
        "HttpOnly",
        "Max-Age=43200",
        "Path=/",
        "SameSite=Lax",
        "Secure",
      ]);
      const out = await fetch(`${url}/api/auth/sign-out`, {
        method: "POST",
        headers: { cookie, "x-csrf-token": csrf, origin: "https://depot.example.com" },
      });
      expect(out.status).toBe(204);
      expect(out.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await secure.close();
    }
  }, 30_000);
});
