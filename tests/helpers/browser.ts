// The browser tests' harness: Debian's chromium (docs/DEVELOPMENT.md, Development), never a downloaded browser;
// a phone's width unless told otherwise, other hosts aborted as if offline, and what the page
// requested, loaded or complained about.
import { afterAll, beforeAll } from "bun:test";
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from "playwright-core";
import type { Runtime } from "../../src/runtime.ts";
import { startTestApp, type TestApp, type TestAppOptions } from "./app.ts";

const CHROMIUM = "/usr/bin/chromium";
/** playwright's launch adds a fresh, empty --user-data-dir of its own and removes it on close. */
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
/** A small phone: the pages must work without sideways scrolling. */
export const PHONE = { width: 375, height: 740 };

export interface Watched {
  /** The one origin the page may reach. */
  origin: string;
  context: BrowserContext;
  page: Page;
  requests: string[];
  /** Uncaught exceptions, and console messages about the Content-Security-Policy. */
  problems: string[];
  /** Uncaught exceptions alone. */
  pageErrors: string[];
  /** Each script the page loaded, by URL, with its gzip-compressed size. */
  scripts: Map<string, number>;
}

let browser: Browser | undefined;

/**
 * A fresh context and page. The browser is launched by the first call, not in beforeAll: the app's
 * fresh database already takes most of the hook's time. `viewport: null` keeps playwright's
 * default (1280×720).
 */
export async function openPage(
  origin: string,
  options: { permissions?: string[]; viewport?: { width: number; height: number } | null } = {},
): Promise<Watched> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const context = await browser.newContext({
    ...(options.viewport === null ? {} : { viewport: options.viewport ?? PHONE }),
    permissions: options.permissions,
  });
  const requests: string[] = [];
  const problems: string[] = [];
  const pageErrors: string[] = [];
  const scripts = new Map<string, number>();
  context.on("request", (request) => requests.push(request.url()));
  await context.route(
    (url) => url.origin !== origin,
    (route) => route.abort("internetdisconnected"),
  );
  const page = await context.newPage();
  page.on("pageerror", (error) => {
    problems.push(error.message);
    pageErrors.push(error.message);
  });
  page.on("console", (message) => {
    if (/content.security.policy/i.test(message.text())) problems.push(message.text());
  });
  page.on("response", async (response) => {
    if (response.request().resourceType() !== "script") return;
    scripts.set(response.url(), Bun.gzipSync(new Uint8Array(await response.body())).length);
  });
  return { origin, context, page, requests, problems, pageErrors, scripts };
}

/** What the page asked of any other origin (each was aborted). */
export const offOrigin = (w: Watched) => w.requests.filter((url) => new URL(url).origin !== w.origin);

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** No sideways scrolling at the phone's width. */
export const fitsWidth = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth <= document.documentElement.clientWidth");

/** Signs in through the dashboard's own form at `base` and waits for its navigation. */
export async function signInAs(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/sign-in`, { waitUntil: "networkidle" });
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page
    .getByRole("navigation", { name: "Dashboard", includeHidden: true })
    .waitFor({ state: "attached", timeout: 10_000 });
}

/** The listening depot of a browser test file; its fields are set once the file's beforeAll ran. */
export interface Depot {
  ctx: Runtime;
  /** The server's base URL, `http://127.0.0.1:<port>`. */
  base: string;
  /** The one origin its pages may reach (openPage's first argument). */
  origin: string;
}

/**
 * Starts a fresh app listening before the file's tests and closes the browser and the app after them.
 * The minute is for the fresh database, which takes most of the hook's time.
 */
export function listeningDepot(options: TestAppOptions = {}): Depot {
  let app: TestApp | undefined;
  const depot = {} as Depot;
  beforeAll(async () => {
    app = await startTestApp(options);
    depot.ctx = app.ctx;
    depot.base = app.listen();
    depot.origin = new URL(depot.base).origin;
  }, 60_000);
  afterAll(async () => {
    await closeBrowser();
    await app?.close();
  });
  return depot;
}

/** The page's session cookie as a Cookie header, to read what the page did through the API from the test. */
export async function cookieOf(w: Watched): Promise<string> {
  const session = (await w.context.cookies()).find((cookie) => cookie.name === "depot_session");
  return `depot_session=${session?.value ?? ""}`;
}

/**
 * Follows a link of the dashboard's sidebar (`nav`, its navigation "Dashboard"). On a phone the links
 * are folded into the Menu button, which is opened first, as a person would.
 */
export async function followNav(nav: Locator, name: string): Promise<void> {
  const menu = nav.page().getByRole("button", { name: "Menu", exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
  await nav.getByRole("link", { name, exact: true }).click();
}

/** Opens the sidebar's Menu on a phone (where Sign out and the links wait behind it); elsewhere nothing. */
export async function openMenu(page: Page): Promise<void> {
  const menu = page.getByRole("button", { name: "Menu", exact: true });
  await menu.waitFor({ state: "attached", timeout: 10_000 });
  if ((await menu.isVisible()) && (await menu.getAttribute("aria-expanded")) !== "true") await menu.click();
}

/** A table's column headers, without a sorted column's ▲/▼ mark. */
export const headersOf = async (table: Locator): Promise<string[]> =>
  (await table.locator("thead th").allTextContents()).map((text) => text.replace(/[▲▼]/g, "").trim());

/** `row`'s cell under the column headed `header` in `table`. */
export async function cellUnder(table: Locator, row: Locator, header: string): Promise<Locator> {
  const headers = await headersOf(table);
  const index = headers.indexOf(header);
  if (index < 0) throw new Error(`no column "${header}" in ${headers.join(", ")}`);
  return row.getByRole("cell").nth(index);
}

/** The row right under `row`: where a table shows the panel that one of the row's actions opened. */
export const rowUnder = (row: Locator) => row.locator("xpath=following-sibling::tr[1]");
