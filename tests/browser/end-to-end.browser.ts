// The dashboard end to end, in Debian's Chromium against a listening depot on the real database:
// a page opened without a session goes to sign-in, and a signed-in browser tricked by another site
// into posting to depot has the post refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sessions } from "../../src/db/schema/index.ts";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { closeBrowser, openPage, type Watched } from "../helpers/browser.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
let t: TestApp;
let base: string;
let origin: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  origin = new URL(base).origin;
}, 60_000);
afterAll(async () => {
  await closeBrowser();
  await t?.close();
});

async function signInAs(w: Watched, email: string) {
  await w.page.goto(`${base}/sign-in`, { waitUntil: "networkidle" });
  await w.page.getByLabel("Email", { exact: true }).fill(email);
  await w.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await w.page.getByRole("button", { name: "Sign in", exact: true }).click();
  await w.page.getByRole("navigation", { name: "Dashboard" }).waitFor({ timeout: 10_000 });
}

test("a dashboard page opened without a session goes to sign-in, and back there after signing in", async () => {
  const customer = await userWithPassword(t.ctx, PASSWORD);
  const w = await openPage(origin);
  try {
    await w.page.goto(`${base}/dashboard/tokens?from=mail`, { waitUntil: "networkidle" });
    await w.page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
    const signInUrl = new URL(w.page.url());
    expect(signInUrl.pathname).toBe("/sign-in");
    expect(signInUrl.searchParams.get("next")).toBe("/dashboard/tokens?from=mail");
    await w.page.getByLabel("Email", { exact: true }).fill(customer.email);
    await w.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await w.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await w.page.getByRole("heading", { name: "Personal access tokens" }).waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/dashboard/tokens");

    // Signing out on purpose, then in again: home, not the page signed out from.
    await w.page.getByRole("button", { name: "Sign out" }).click();
    await w.page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
    expect(w.page.url()).toBe(`${base}/sign-in`);

    // A "next" naming another host is not followed.
    await w.page.goto(`${base}/sign-in?next=${encodeURIComponent("//evil.example/x")}`);
    await w.page.getByLabel("Email", { exact: true }).fill(customer.email);
    await w.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await w.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await w.page.getByRole("heading", { name: `Welcome, ${customer.name}` }).waitFor({ timeout: 10_000 });
    expect(w.page.url()).toBe(`${base}/`);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a form on another site posting to depot with the signed-in browser's cookie is refused", async () => {
  const admin = await userWithPassword(t.ctx, PASSWORD, { role: "admin" });
  const w = await openPage(origin);
  try {
    await signInAs(w, admin.email);
    // Another site on the same host (a port is not part of a site, so the SameSite=Lax cookie goes
    // along with the post): the worst case for a cookie, left to the CSRF defence.
    const evil = `http://127.0.0.1:${Number(new URL(base).port) + 1}`;
    await w.page.route(`${evil}/**`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<!doctype html><form method="post" action="${base}/api/auth/sign-out-everywhere"></form>
          <script>document.forms[0].submit()</script>`,
      }),
    );
    const answered = w.page.waitForResponse((response) => response.url().startsWith(`${base}/api/`));
    await w.page.goto(`${evil}/prize`);
    const response = await answered;
    const sent = await response.request().allHeaders();
    expect(response.request().method()).toBe("POST");
    expect(sent.cookie).toContain("depot_session=");
    expect(sent.origin).toBe(evil);
    expect(response.status()).toBe(403);
    expect(await response.json()).toEqual({ message: "Cross-site request refused." });

    // The post changed nothing: the session lives on, and depot's own page still works.
    await w.page.goto(`${base}/dashboard/profile`, { waitUntil: "networkidle" });
    await w.page.getByRole("heading", { name: "Profile" }).waitFor({ timeout: 10_000 });
    const alive = await t.ctx.db.select().from(sessions).where(eq(sessions.userId, admin.id));
    expect(alive.length).toBe(1);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
