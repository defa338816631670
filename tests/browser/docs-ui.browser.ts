// /docs in a real browser: Scalar renders the API from what depot serves, and the page asks no other
// host for anything (fonts, scripts, telemetry). Uses Debian's chromium (README, Development), never
// a downloaded browser; requests to other hosts are aborted, so the page behaves as it would offline.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { startTestApp, type TestApp } from "../helpers/app.ts";

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

let t: TestApp;
let base: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`);
  t = await startTestApp();
  base = t.listen();
});
afterAll(() => t?.close());

test("/docs renders the API in Chromium with every request going to depot", async () => {
  const origin = new URL(base).origin;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext();
    const requests: string[] = [];
    const pageErrors: string[] = [];
    context.on("request", (request) => requests.push(request.url()));
    await context.route(
      (url) => url.origin !== origin,
      (route) => route.abort("internetdisconnected"),
    );
    const page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));

    const offOrigin = () => requests.filter((url) => new URL(url).origin !== origin);

    const response = await page.goto(`${base}/docs`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    expect(offOrigin()).toEqual([]);
    await page.getByRole("heading", { name: "depot", exact: true }).first().waitFor({ timeout: 10_000 });
    // Operations of a collapsed tag are not in the page until it is opened, as a reader would.
    await page.getByRole("button", { name: "Open Group - Licenses" }).first().click();
    await page.getByText("Validate a license key").first().waitFor({ timeout: 10_000 });
    // Fonts, lazy chunks and beacons may follow the first render: wait until the page is quiet again.
    await page.waitForLoadState("networkidle");
    expect(offOrigin()).toEqual([]);
    // Scalar's buttons that would upload the API document to its services are not offered.
    const text = (await page.locator("body").textContent()) ?? "";
    for (const offer of ["Ask AI", "Generate MCP"]) expect(text).not.toContain(offer);
    expect(requests).toContain(`${base}/docs`);
    expect(requests.some((url) => url.startsWith(`${base}/docs/assets/`))).toBe(true);
    expect(pageErrors).toEqual([]);
  } finally {
    await browser.close();
  }
}, 30_000);
