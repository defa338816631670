// Screenshots of Home for each role (vendor, admin, customer), at 1,280 px and 375 px wide, into
// docs/screenshots/ (README.md and docs/dashboard.md show them): a fresh depot on the embedded
// database with 90 days of usage (tests/helpers/usage.ts), Debian's chromium through the browser
// tests' harness, light colour scheme. Run: bun scripts/screenshots.ts
import { mkdirSync } from "node:fs";
import { startTestApp } from "../tests/helpers/app.ts";
import { closeBrowser, openPage, signInAs } from "../tests/helpers/browser.ts";
import { USAGE_PASSWORD, usageWorld } from "../tests/helpers/usage.ts";

const OUT = new URL("../docs/screenshots/", import.meta.url).pathname;
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 375, height: 740 } };

mkdirSync(OUT, { recursive: true });
// Publishing enqueues its notification job in the same transaction: pg-boss must be up to send.
const app = await startTestApp({ jobs: "send" });
try {
  const base = app.listen();
  const world = await usageWorld(app.ctx, base);
  const roles = { vendor: world.vendor, admin: world.admin, customer: world.customer };
  for (const [role, user] of Object.entries(roles)) {
    for (const [size, viewport] of Object.entries(WIDTHS)) {
      const w = await openPage(new URL(base).origin, { viewport });
      try {
        await w.page.emulateMedia({ colorScheme: "light" });
        await signInAs(w.page, base, user.email, USAGE_PASSWORD);
        await w.page.waitForLoadState("networkidle");
        await w.page
          .getByRole("heading", { name: /The last 30 days|Your licenses/ })
          .first()
          .waitFor();
        const file = `${OUT}overview-${role}-${size === "desktop" ? 1280 : 375}.png`;
        await w.page.screenshot({ path: file, fullPage: true });
        console.log(`wrote ${file}`);
      } finally {
        await w.context.close();
      }
    }
  }
} finally {
  await closeBrowser();
  await app.close();
}
