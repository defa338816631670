import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createUser } from "./helpers/factories.ts";
import { type Inbox, startInbox, until } from "./helpers/inbox.ts";

/**
 * "Forgot password" (docs/dashboard.md, Signing in): with SMTP_URL a set-password link is e-mailed to
 * an address that has an account; the answer is the same for one that has none; asking is throttled.
 */

const SAME_SITE = { origin: "http://depot.test", "sec-fetch-site": "same-origin" };

let t: TestApp;
let base: string;
let inbox: Inbox;

beforeAll(async () => {
  inbox = await startInbox();
  t = await startTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${inbox.port}` }, jobs: "workers" });
  base = t.listen();
}, 60_000);
afterAll(async () => {
  await t.close();
  await inbox.close();
}, 15_000);

const forgot = (email: string, headers: Record<string, string> = SAME_SITE) =>
  fetch(`${base}/api/auth/forgot-password`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ email }),
  });

describe("with SMTP_URL", () => {
  test("a known address (any case) is e-mailed a link; an unknown one gets the same answer and no mail", async () => {
    const user = await createUser(t.ctx, { email: `forgot-${crypto.randomUUID().slice(0, 8)}@example.com` });
    const known = await forgot(user.email.toUpperCase());
    const unknown = await forgot(`nobody-${crypto.randomUUID().slice(0, 8)}@example.com`);
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(known.headers.get("content-type")).toContain("application/json");
    expect(await readJson(known)).toEqual({ data: { by_email: true } });
    expect(await readJson(unknown)).toEqual({ data: { by_email: true } });
    const { mail } = await until("the link", () =>
      inbox.messages.find((m) => m.envelopeTo.includes(user.email)),
    );
    expect(mail.subject).toBe("Set your depot password");
    expect(mail.text).toMatch(/http:\/\/depot\.test\/set-password\?token=\S+/);
    await Bun.sleep(300);
    expect(inbox.messages.filter((m) => m.envelopeTo.includes(user.email))).toHaveLength(1);
  }, 30_000);

  test("asking again soon sends no second e-mail", async () => {
    const user = await createUser(t.ctx);
    await forgot(user.email);
    await until("the first link", () => inbox.messages.find((m) => m.envelopeTo.includes(user.email)));
    expect((await forgot(user.email)).status).toBe(200);
    await Bun.sleep(1000);
    expect(inbox.messages.filter((m) => m.envelopeTo.includes(user.email))).toHaveLength(1);
  }, 30_000);

  test("throttled per address, known or not, with Retry-After", async () => {
    const email = `bomb-${crypto.randomUUID().slice(0, 8)}@example.com`;
    for (let i = 0; i < 5; i++) expect((await forgot(email)).status).toBe(200);
    const refused = await forgot(email);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(typeof (await readJson(refused)).message).toBe("string");
  });

  test("from another site: 403; no address: 422", async () => {
    expect(
      (await forgot("a@example.com", { origin: "https://evil.example", "sec-fetch-site": "cross-site" }))
        .status,
    ).toBe(403);
    const empty = await forgot("");
    expect(empty.status).toBe(422);
    expect(Object.keys((await readJson(empty)).errors)).toEqual(["email"]);
  });
});

test("without SMTP_URL the answer says links come from an admin", async () => {
  const off = await startTestApp();
  try {
    const response = await off.request("/api/auth/forgot-password", {
      method: "POST",
      headers: { "content-type": "application/json", ...SAME_SITE },
      body: JSON.stringify({ email: "anyone@example.com" }),
    });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ data: { by_email: false } });
  } finally {
    await off.close();
  }
}, 30_000);
