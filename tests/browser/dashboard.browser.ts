// The dashboard in a real browser at a phone's width: / lands on the sign-in form, a failed sign-in
// shows an error, every request goes to depot itself and the first load's JavaScript stays within its
// budget; the real sign-in shows 422, 429 and a network failure, signs in, keeps the session over a
// reload and signs out with the session's CSRF token.
// Same harness as docs-ui.browser.ts: Debian's chromium, other hosts aborted as if offline.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { startTestApp, type TestApp } from "../helpers/app.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** The first load's JavaScript, gzip-compressed (README, Dashboard). */
const FIRST_LOAD_JS_BUDGET = 200 * 1024;
/** A small phone: the pages must work without sideways scrolling. */
const PHONE = { width: 375, height: 740 };

let t: TestApp;
let base: string;
let origin: string;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  t = await startTestApp();
  base = t.listen();
  origin = new URL(base).origin;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

interface Watched {
  context: BrowserContext;
  page: Page;
  requests: string[];
  /** Uncaught exceptions, and console messages about the Content-Security-Policy. */
  problems: string[];
  /** Each script the page loaded, by URL, with its gzip-compressed size. */
  scripts: Map<string, number>;
}

async function openPage(): Promise<Watched> {
  // Launched by the first test, not in beforeAll: the app's fresh database already takes most of
  // the hook's time.
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: PHONE });
  const requests: string[] = [];
  const problems: string[] = [];
  const scripts = new Map<string, number>();
  context.on("request", (request) => requests.push(request.url()));
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.abort("internetdisconnected"),
  );
  const page = await context.newPage();
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("console", (message) => {
    if (/content.security.policy/i.test(message.text())) problems.push(message.text());
  });
  page.on("response", async (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.set(response.url(), Bun.gzipSync(new Uint8Array(await response.body())).length);
  });
  return { context, page, requests, problems, scripts };
}

const offOrigin = (w: Watched) => w.requests.filter((url) => new URL(url).origin !== origin);

/** No sideways scrolling at the phone's width. */
const fitsWidth = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth <= document.documentElement.clientWidth");

test("/ lands on the sign-in form, a failed sign-in shows an error, nothing leaves depot", async () => {
  const w = await openPage();
  try {
    const response = await w.page.goto(`${base}/`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    const email = w.page.getByLabel("Email", { exact: true });
    const password = w.page.getByLabel("Password", { exact: true });
    const submit = w.page.getByRole("button", { name: "Sign in", exact: true });
    await email.waitFor({ timeout: 10_000 });
    // No session (the check answers 401): the sign-in page.
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    await expect(password.isVisible()).resolves.toBe(true);
    await expect(submit.isVisible()).resolves.toBe(true);
    expect(await fitsWidth(w.page)).toBe(true);

    // By keyboard alone: Tab to each field, Enter submits.
    await w.page.keyboard.press("Tab");
    expect(await email.evaluate((element) => element.matches(":focus"))).toBe(true);
    // The keyboard's focus is visible: the stylesheet's ring, not just the browser's default.
    expect(
      await email.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth,
      ),
    ).toBe("3px");
    await w.page.keyboard.type("nobody@example.com");
    await w.page.keyboard.press("Tab");
    expect(await password.evaluate((element) => element.matches(":focus"))).toBe(true);
    await w.page.keyboard.type("not the password");
    await w.page.keyboard.press("Enter");

    const alert = w.page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(((await alert.textContent()) ?? "").trim().length).toBeGreaterThan(0);
    expect(await alert.isVisible()).toBe(true);
    expect(w.requests).toContain(`${base}/api/auth/sign-in`);
    // Still on the form, ready for another try.
    await expect(submit.isEnabled()).resolves.toBe(true);

    await w.page.waitForLoadState("networkidle");
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);

    // The first load's scripts: all of it from depot, within the budget once compressed.
    expect(w.scripts.size).toBeGreaterThan(0);
    const compressed = [...w.scripts.values()].reduce((sum, size) => sum + size, 0);
    console.log(`dashboard first load: ${w.scripts.size} script(s), ${compressed} bytes gzipped`);
    expect(compressed).toBeLessThan(FIRST_LOAD_JS_BUDGET);
  } finally {
    await w.context.close();
  }
}, 30_000);

const PASSWORD = "correct horse battery";

test("against the real sign-in: 422, 429 and a network failure shown; sign in, home, reload, sign out", async () => {
  const vera = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  // Another account, throttled first (five failures from this address: the sixth try is refused).
  const throttled = await userWithPassword(t.ctx, PASSWORD);
  for (let attempt = 0; attempt < 5; attempt++) {
    await fetch(`${base}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: throttled.email, password: "wrong password" }),
    });
  }
  const w = await openPage();
  const signOutHeaders: Record<string, string>[] = [];
  w.page.on("request", (request) => {
    if (request.url() === `${base}/api/auth/sign-out`) signOutHeaders.push(request.headers());
  });
  try {
    await w.page.goto(`${base}/dashboard/anything`, { waitUntil: "networkidle" });
    const submit = w.page.getByRole("button", { name: "Sign in", exact: true });
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    const email = w.page.getByLabel("Email", { exact: true });
    const password = w.page.getByLabel("Password", { exact: true });
    const alert = w.page.getByRole("alert");

    await email.fill(vera.email);
    await password.fill("not the password");
    await submit.click();
    await w.page.getByText("These credentials do not match our records.").waitFor({ timeout: 10_000 });
    // The field's error repeats the message: shown once, and the field is marked invalid.
    expect(await w.page.getByText("These credentials do not match our records.").count()).toBe(1);
    expect(await email.getAttribute("aria-invalid")).toBe("true");

    await email.fill(throttled.email);
    await password.fill(PASSWORD);
    await submit.click();
    await w.page.getByText(/^Too many sign-in attempts\. Please try again in \d+ seconds\.$/).waitFor();

    // The network goes away for one request.
    await w.page.route(`${base}/api/auth/sign-in`, (route) => route.abort("internetdisconnected"), {
      times: 1,
    });
    await email.fill(vera.email);
    await submit.click();
    await w.page.getByText("depot could not be reached").waitFor();
    expect(await alert.isVisible()).toBe(true);

    await submit.click();
    const signOut = w.page.getByRole("button", { name: "Sign out", exact: true });
    await signOut.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/");
    const text = (await w.page.locator("main").textContent()) ?? "";
    expect(text).toContain(vera.name);
    expect(text).toContain("vendor");
    expect(await fitsWidth(w.page)).toBe(true);
    const [cookie] = (await w.context.cookies()).filter((c) => c.name === "depot_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });

    // A reload keeps the session (GET /api/auth/session decides).
    await w.page.reload({ waitUntil: "networkidle" });
    await signOut.waitFor({ timeout: 10_000 });

    await signOut.click();
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    expect(signOutHeaders).toHaveLength(1);
    expect(signOutHeaders[0]?.["x-csrf-token"]).toMatch(/^\S{20,}$/);
    expect((await w.context.cookies()).filter((c) => c.name === "depot_session")).toEqual([]);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 30_000);
