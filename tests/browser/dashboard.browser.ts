// The dashboard in a real browser at a phone's width: / lands on the sign-in form, a failed sign-in
// shows an error, every request goes to depot itself and the first load's JavaScript stays within its
// budget. The auth endpoints are another branch's work: the first test signs in against this server
// as it is (whatever it answers must show as an error); the second plays the auth contract
// (README, Dashboard) with page.route to walk through 422, 429, a network failure, sign-in and sign-out.
// Same harness as docs-ui.browser.ts: Debian's chromium, other hosts aborted as if offline.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { startTestApp, type TestApp } from "../helpers/app.ts";

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
    // No session (this branch has no auth endpoints yet: the check answers 404): the sign-in page.
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

const USER = {
  id: 7,
  name: "Vera Vendor",
  email: "vera@example.com",
  role: { id: 2, name: "vendor", permissions: ["products.publish"] },
};
const CSRF = "csrf-token-for-the-test";
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  contentType: "application/json",
  headers,
  body: JSON.stringify(body),
});

test("against the auth contract: 422, 429 and network errors shown; sign in, home, sign out with the CSRF token", async () => {
  const w = await openPage();
  let signedIn = false;
  const signOutHeaders: Record<string, string>[] = [];
  let nextSignIn: "422" | "429" | "network" | "ok" = "422";
  try {
    await w.page.route(`${base}/api/auth/session`, (route) =>
      route.fulfill(
        signedIn
          ? json(200, { data: { user: USER, csrf_token: CSRF } })
          : json(401, { message: "Unauthenticated." }),
      ),
    );
    await w.page.route(`${base}/api/auth/sign-in`, (route) => {
      if (nextSignIn === "network") return route.abort("internetdisconnected");
      if (nextSignIn === "429")
        return route.fulfill(
          json(
            429,
            { message: "Too many sign-in attempts. Please try again in 42 seconds." },
            { "retry-after": "42" },
          ),
        );
      if (nextSignIn === "422")
        return route.fulfill(
          json(422, {
            message: "These credentials do not match our records.",
            errors: { email: ["These credentials do not match our records."] },
          }),
        );
      signedIn = true;
      return route.fulfill(json(200, { data: { user: USER, csrf_token: CSRF } }));
    });
    await w.page.route(`${base}/api/auth/sign-out`, (route) => {
      signOutHeaders.push(route.request().headers());
      signedIn = false;
      return route.fulfill({ status: 204 });
    });

    await w.page.goto(`${base}/dashboard/anything`, { waitUntil: "networkidle" });
    const submit = w.page.getByRole("button", { name: "Sign in", exact: true });
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    await w.page.getByLabel("Email", { exact: true }).fill(USER.email);
    await w.page.getByLabel("Password", { exact: true }).fill("secret");
    const alert = w.page.getByRole("alert");

    await submit.click();
    await w.page.getByText("These credentials do not match our records.").waitFor({ timeout: 10_000 });
    // The field's error repeats the message: shown once, and the field is marked invalid.
    expect(await w.page.getByText("These credentials do not match our records.").count()).toBe(1);
    expect(await w.page.getByLabel("Email", { exact: true }).getAttribute("aria-invalid")).toBe("true");

    nextSignIn = "429";
    await submit.click();
    await w.page.getByText("Too many sign-in attempts. Please try again in 42 seconds.").waitFor();

    nextSignIn = "network";
    await submit.click();
    await w.page.getByText("depot could not be reached").waitFor();
    expect(await alert.isVisible()).toBe(true);

    nextSignIn = "ok";
    await submit.click();
    const signOut = w.page.getByRole("button", { name: "Sign out", exact: true });
    await signOut.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/");
    const text = (await w.page.locator("main").textContent()) ?? "";
    expect(text).toContain(USER.name);
    expect(text).toContain(USER.role.name);
    expect(await fitsWidth(w.page)).toBe(true);

    // A reload keeps the session (GET /api/auth/session decides).
    await w.page.reload({ waitUntil: "networkidle" });
    await signOut.waitFor({ timeout: 10_000 });

    await signOut.click();
    await submit.waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/sign-in");
    expect(signOutHeaders).toHaveLength(1);
    expect(signOutHeaders[0]?.["x-csrf-token"]).toBe(CSRF);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 30_000);
