// /docs in a real browser: Scalar renders the API from what depot serves, and the page asks no other
// host for anything (fonts, scripts, telemetry). The harness is tests/helpers/browser.ts: Debian's
// chromium, never a downloaded browser; requests to other hosts are aborted, so the page behaves as it
// would offline.
import { expect, test } from "bun:test";
import { listeningDepot, offOrigin, openPage } from "../helpers/browser.ts";

const depot = listeningDepot();

test("/docs renders the API in Chromium with every request going to depot", async () => {
  const w = await openPage(depot.origin, { viewport: null });
  const { page, requests, pageErrors } = w;
  try {
    const response = await page.goto(`${depot.base}/docs`, { waitUntil: "networkidle" });
    expect(response?.status()).toBe(200);
    expect(offOrigin(w)).toEqual([]);
    await page.getByRole("heading", { name: "depot", exact: true }).first().waitFor({ timeout: 10_000 });
    // Operations of a collapsed tag are not in the page until it is opened, as a reader would.
    await page.getByRole("button", { name: "Open Group - Licenses" }).first().click();
    await page.getByText("Validate a license key").first().waitFor({ timeout: 10_000 });
    // Fonts, lazy chunks and beacons may follow the first render: wait until the page is quiet again.
    await page.waitForLoadState("networkidle");
    expect(offOrigin(w)).toEqual([]);
    // Scalar's buttons that would upload the API document to its services are not offered.
    const text = (await page.locator("body").textContent()) ?? "";
    for (const offer of ["Ask AI", "Generate MCP"]) expect(text).not.toContain(offer);
    expect(requests).toContain(`${depot.base}/docs`);
    expect(requests.some((url) => url.startsWith(`${depot.base}/docs/assets/`))).toBe(true);
    expect(pageErrors).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 30_000);
