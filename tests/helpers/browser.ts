// The browser tests' harness (the same as tests/browser/dashboard.browser.ts): Debian's chromium,
// a phone's width, other hosts aborted as if offline, and what the page requested or complained about.
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

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
/** A small phone: the pages must work without sideways scrolling. */
export const PHONE = { width: 375, height: 740 };

export interface Watched {
  context: BrowserContext;
  page: Page;
  requests: string[];
  /** Uncaught exceptions, and console messages about the Content-Security-Policy. */
  problems: string[];
}

let browser: Browser | undefined;

export async function openPage(origin: string, options: { permissions?: string[] } = {}): Promise<Watched> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  browser ??= await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: PHONE, permissions: options.permissions });
  const requests: string[] = [];
  const problems: string[] = [];
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
  return { context, page, requests, problems };
}

export async function closeBrowser(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** No sideways scrolling at the phone's width. */
export const fitsWidth = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth <= document.documentElement.clientWidth");
