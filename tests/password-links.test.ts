import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { selectRows } from "../src/db/rows.ts";
import { users } from "../src/db/schema/index.ts";
import { hashPassword } from "../src/features/auth/passwords.ts";
import { sendPasswordLinkEmail } from "../src/features/password-links/email.ts";
import { INVALID_LINK, issuePasswordLink } from "../src/features/password-links/service.ts";
import { setPassword } from "../src/features/users/service.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createUser, tokenFor } from "./helpers/factories.ts";
import { type Inbox, startInbox, until } from "./helpers/inbox.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

/**
 * Set-password links (docs/reference/http-api.md, Dashboard sign-in and sessions): issued by an admin, e-mailed through a
 * real SMTP server on loopback by the job workers, used once through a listening server.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const LINK = /^http:\/\/depot\.test\/set-password\?token=([1-9]\d*\.\d+\.[A-Za-z0-9_-]{43})$/;
const INVALID = { message: INVALID_LINK, errors: { token: [INVALID_LINK] } };
const OLD_PASSWORD = "old password 123";
const NEW_PASSWORD = "a brand new password";
const HOUR_MS = 3_600_000;

let t: TestApp;
let base: string;
let inbox: Inbox;
let adminToken: string;
let vendorToken: string;

beforeAll(async () => {
  inbox = await startInbox();
  t = await startTestApp({
    env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}`, MAIL_FROM: "Depot <depot@depot.test>" },
    jobs: "workers",
  });
  base = t.listen();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  vendorToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }));
}, 60_000);
afterAll(async () => {
  await t.close();
  await inbox.close();
}, 15_000);

/** POST /api/admin/users/{id}/password-link as `token`. */
const askForLink = (userId: number | string, token = adminToken) =>
  fetch(`${base}/api/admin/users/${userId}/password-link`, { method: "POST", headers: bearer(token) });

/** A link for `userId` made through the API; its token. */
async function linkTokenFor(userId: number): Promise<string> {
  const response = await askForLink(userId);
  expect(response.status).toBe(201);
  const { data } = await readJson(response);
  return LINK.exec(data.url)?.[1] ?? "";
}

const setPasswordWith = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/auth/set-password`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const readLink = (token: string) =>
  fetch(`${base}/api/auth/password-link?token=${encodeURIComponent(token)}`);

const hashOf = async (userId: number) =>
  (await t.ctx.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId)))[0]?.hash;

async function expectInvalid(response: Response) {
  expect(response.status).toBe(422);
  expect(response.headers.get("content-type")).toContain("application/json");
  expect(await readJson(response)).toEqual(INVALID);
}

describe("the whole flow", () => {
  test("link → greeting → set → the new password signs in, the old one and old sessions do not", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const before = await signIn(base, user.email, OLD_PASSWORD);

    const issued = await askForLink(user.id);
    expect(issued.status).toBe(201);
    expect(issued.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(issued);
    expect(Object.keys(data).sort()).toEqual(["emailed", "expires_at", "url"]);
    // SMTP_URL is set here: the answer says the link is on its way to the user too.
    expect(data.emailed).toBe(true);
    expect(data.url).toMatch(LINK);
    expect(data.expires_at).toMatch(ISO);
    const lifetime = Date.parse(data.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(72 * HOUR_MS - 60_000);
    expect(lifetime).toBeLessThanOrEqual(72 * HOUR_MS);
    const token = LINK.exec(data.url)?.[1] ?? "";

    const greeting = await readLink(token);
    expect(greeting.status).toBe(200);
    expect(greeting.headers.get("content-type")).toContain("application/json");
    expect(await readJson(greeting)).toEqual({ data: { email: user.email, expires_at: data.expires_at } });

    const set = await setPasswordWith(
      { token, password: NEW_PASSWORD },
      { origin: "http://depot.test", "sec-fetch-site": "same-origin" },
    );
    expect(set.status).toBe(204);
    expect(await set.text()).toBe("");

    const old = await fetch(`${base}/api/auth/session`, { headers: { cookie: before.cookie } });
    expect(old.status).toBe(401);
    const after = await signIn(base, user.email, NEW_PASSWORD);
    expect(after.cookie).toStartWith("depot_session=");
    const withOld = await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: user.email, password: OLD_PASSWORD }),
    });
    expect(withOld.status).toBe(422);
  }, 30_000);

  test("a user without a password yet gets one", async () => {
    const user = await createUser(t.ctx);
    const token = await linkTokenFor(user.id);
    expect((await setPasswordWith({ token, password: NEW_PASSWORD })).status).toBe(204);
    expect((await signIn(base, user.email, NEW_PASSWORD)).cookie).toStartWith("depot_session=");
  }, 30_000);
});

describe("a link works once, for a while, as issued", () => {
  test("used: the same 422 on the second use and on reading it; the password stays the first one", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    expect((await setPasswordWith({ token, password: NEW_PASSWORD })).status).toBe(204);
    const hash = await hashOf(user.id);
    await expectInvalid(await setPasswordWith({ token, password: "another password 42" }));
    await expectInvalid(await readLink(token));
    expect(await hashOf(user.id)).toBe(hash);
  }, 30_000);

  test("issued before a later password change (the CLI's): refused", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    await setPassword(t.ctx, user.email, await hashPassword("changed elsewhere"));
    await expectInvalid(await readLink(token));
    await expectInvalid(await setPasswordWith({ token, password: NEW_PASSWORD }));
  }, 30_000);

  test("expired: a link issued 72 h and a second ago is refused; one issued 71 h ago works", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const hash = await hashOf(user.id);
    const expired = await issuePasswordLink(t.ctx, user.id, new Date(Date.now() - 72 * HOUR_MS - 1000));
    const expiredToken = LINK.exec(expired.url)?.[1] ?? "";
    await expectInvalid(await readLink(expiredToken));
    await expectInvalid(await setPasswordWith({ token: expiredToken, password: NEW_PASSWORD }));
    expect(await hashOf(user.id)).toBe(hash);

    const late = await issuePasswordLink(t.ctx, user.id, new Date(Date.now() - 71 * HOUR_MS));
    const lateToken = LINK.exec(late.url)?.[1] ?? "";
    expect((await readLink(lateToken)).status).toBe(200);
    expect((await setPasswordWith({ token: lateToken, password: NEW_PASSWORD })).status).toBe(204);
  }, 30_000);

  test("tampered: another user's id, a later expiry, a changed signature, garbage: the same 422", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const other = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    const [id, expires, signature = ""] = token.split(".");
    const flipped = `${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`;
    const tampered = [
      `${other.id}.${expires}.${signature}`,
      `${id}.${Number(expires) + 3600}.${signature}`,
      `${id}.${expires}.${flipped}`,
      `${id}.${expires}`,
      `999999999.${expires}.${signature}`,
      "not a token",
      "",
      `${token}x`,
    ];
    for (const bad of tampered) {
      await expectInvalid(await readLink(bad));
      await expectInvalid(await setPasswordWith({ token: bad, password: NEW_PASSWORD }));
    }
    await expectInvalid(await fetch(`${base}/api/auth/password-link`));
    expect(await hashOf(user.id)).not.toBeNull();
    expect((await signIn(base, user.email, OLD_PASSWORD)).cookie).toStartWith("depot_session=");
    expect((await signIn(base, other.email, OLD_PASSWORD)).cookie).toStartWith("depot_session=");
  }, 30_000);
});

describe("POST /api/auth/set-password refuses bad input", () => {
  test("a password of 7 or 1025 characters: 422 on password; the link stays usable", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    const short = await setPasswordWith({ token, password: "1234567" });
    expect(short.status).toBe(422);
    expect(await readJson(short)).toEqual({
      message: "The password field must be at least 8 characters.",
      errors: { password: ["The password field must be at least 8 characters."] },
    });
    const long = await setPasswordWith({ token, password: "x".repeat(1025) });
    expect(long.status).toBe(422);
    expect((await readJson(long)).errors).toEqual({
      password: ["The password field must not be greater than 1024 characters."],
    });
    expect((await setPasswordWith({ token, password: "12345678" })).status).toBe(204);
  }, 30_000);

  test("a bad link and a bad password: both fields in one 422", async () => {
    const response = await setPasswordWith({ token: "1.2.x", password: "short" });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      token: [INVALID_LINK],
      password: ["The password field must be at least 8 characters."],
    });
  });

  test("missing fields, wrong types, extra fields, not JSON: 4xx JSON, never 500", async () => {
    const cases: [unknown, number][] = [
      [{}, 422],
      [{ token: 1, password: 2 }, 422],
      [{ token: "a", password: NEW_PASSWORD, admin: true }, 422],
      [[], 422],
    ];
    for (const [body, status] of cases) {
      const response = await setPasswordWith(body);
      expect(response.status).toBe(status);
      expect(typeof (await readJson(response)).message).toBe("string");
    }
    const notJson = await fetch(`${base}/api/auth/set-password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    expect(typeof (await readJson(notJson)).message).toBe("string");
  });

  test("from another site (Origin or Sec-Fetch-Site): 403, and the link is not used", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { "sec-fetch-site": "cross-site" },
    ];
    for (const headers of crossSite) {
      const response = await setPasswordWith({ token, password: NEW_PASSWORD }, headers);
      expect(response.status).toBe(403);
      expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
    }
    expect((await readLink(token)).status).toBe(200);
  }, 30_000);

  test("from another site neither the body nor the link is looked at: 403 rather than a 422", async () => {
    const response = await setPasswordWith(
      { token: "1.2.x", password: "short" },
      { "sec-fetch-site": "cross-site" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
  });
});

describe("POST /api/admin/users/{id}/password-link", () => {
  test("only an admin: no token 401, a vendor 403; an unknown or malformed id 404", async () => {
    const user = await createUser(t.ctx);
    const anonymous = await fetch(`${base}/api/admin/users/${user.id}/password-link`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
    const vendor = await askForLink(user.id, vendorToken);
    expect(vendor.status).toBe(403);
    expect(await readJson(vendor)).toEqual({ message: "This action is unauthorized." });
    for (const id of [999_999_999, "abc"]) {
      const unknown = await askForLink(id);
      expect(unknown.status).toBe(404);
      expect(await readJson(unknown)).toEqual({ message: "User not found." });
    }
  });

  test("with SMTP_URL the link is e-mailed to the user, the same link the admin got", async () => {
    const user = await createUser(t.ctx, { name: "Mia Mail" });
    const response = await askForLink(user.id);
    const { data } = await readJson(response);
    const message = await until("the password link e-mail", () =>
      inbox.messages.find((m) => m.envelopeTo.includes(user.email)),
    );
    expect(message.mail.subject).toBe("Set your depot password");
    expect(message.mail.from?.value[0]?.address).toBe("depot@depot.test");
    expect(message.mail.text).toContain("Hello Mia Mail,");
    expect(message.mail.text).toContain(data.url);
    expect(message.mail.html || "").toContain(`href="${Bun.escapeHTML(data.url)}"`);
  }, 30_000);

  test("the job holds the link's claims, not its token; a link spent before the job runs is not sent", async () => {
    const user = await userWithPassword(t.ctx, OLD_PASSWORD);
    const token = await linkTokenFor(user.id);
    const jobs = await selectRows<{ data: Record<string, unknown> }>(
      t.ctx.db,
      sql`SELECT data FROM pgboss.job WHERE name = 'password-link.email' AND (data->>'user_id')::bigint = ${user.id}`,
    );
    expect(jobs).toHaveLength(1);
    const data = jobs[0]?.data ?? {};
    expect(Object.keys(data).sort()).toEqual(["expires", "fingerprint", "user_id"]);
    expect(JSON.stringify(data)).not.toContain(token.split(".")[2] ?? "");
    await until("the first e-mail", () => inbox.messages.find((m) => m.envelopeTo.includes(user.email)));

    // Spent: the job, run again now (as a retry would), sends nothing more.
    expect((await setPasswordWith({ token, password: NEW_PASSWORD })).status).toBe(204);
    await sendPasswordLinkEmail(t.ctx, data as { user_id: number; expires: number; fingerprint: string });
    expect(inbox.messages.filter((m) => m.envelopeTo.includes(user.email))).toHaveLength(1);
  }, 30_000);
});
