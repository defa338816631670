// The dashboard end to end, in Debian's Chromium against a listening depot on the real database, with
// its job workers running: an admin makes a vendor and a product with an option; the vendor sets a
// password from the link, makes a token, licenses a customer and publishes a 5 MB release watching the
// progress bar; the customer is notified, downloads the very bytes and resets an address. axe-core
// checks every page on the way, and the README's screenshots are taken here (docs/screenshots/).
// Also: a page opened without a session goes to sign-in, and a signed-in browser tricked by another
// site into posting to depot has the post refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { notifications, sessions } from "../../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "../helpers/app.ts";
import { seriousViolations } from "../helpers/axe.ts";
import {
  closeBrowser,
  cookieOf,
  followNav,
  offOrigin,
  openMenu,
  openPage,
  signInAs as signInThroughForm,
  type Watched,
} from "../helpers/browser.ts";
import { randomBytes, sha256 } from "../helpers/bytes.ts";
import { createPurchase } from "../helpers/factories.ts";
import { until } from "../helpers/inbox.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const VENDOR_PASSWORD = "vendors password 42";
let t: TestApp;
let base: string;
let origin: string;

beforeAll(async () => {
  t = await startTestApp({ jobs: "workers" });
  base = t.listen();
  origin = new URL(base).origin;
}, 60_000);
afterAll(async () => {
  await closeBrowser();
  await t?.close();
});

const signInAs = (w: Watched, email: string, password = PASSWORD) =>
  signInThroughForm(w.page, base, email, password);

test("a dashboard page opened without a session goes to sign-in, and back there after signing in", async () => {
  const customer = await userWithPassword(t.ctx, PASSWORD);
  const w = await openPage(origin);
  try {
    await w.page.goto(`${base}/dashboard/notifications?from=mail`, { waitUntil: "networkidle" });
    await w.page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
    const signInUrl = new URL(w.page.url());
    expect(signInUrl.pathname).toBe("/sign-in");
    expect(signInUrl.searchParams.get("next")).toBe("/dashboard/notifications?from=mail");
    await w.page.getByLabel("Email", { exact: true }).fill(customer.email);
    await w.page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await w.page.getByRole("button", { name: "Sign in", exact: true }).click();
    await w.page.getByRole("heading", { name: "Notifications", level: 1 }).waitFor({ timeout: 10_000 });
    expect(new URL(w.page.url()).pathname).toBe("/dashboard/notifications");

    // Signing out on purpose, then in again: home, not the page signed out from.
    await openMenu(w.page);
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
    // The signed-in page may still be reading (the unread badge): wait for the forged post itself.
    const answered = w.page.waitForResponse(
      (response) => response.request().method() === "POST" && response.url().startsWith(`${base}/api/`),
    );
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

/**
 * The story below takes the README's screenshots at a laptop's width. They replace the committed ones
 * only with UPDATE_SCREENSHOTS=1: otherwise every run would leave changed pictures in the checkout.
 */
const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS
  ? join(import.meta.dir, "../../docs/screenshots")
  : mkdtempSync(join(tmpdir(), "depot-screenshots-"));
const LAPTOP = { width: 1100, height: 760 };

async function expectAccessible(w: Watched, page: string) {
  const violations = await seriousViolations(w.page);
  expect({ page, violations }).toEqual({ page, violations: [] });
}

async function expectClean(w: Watched) {
  expect(offOrigin(w)).toEqual([]);
  expect(w.problems).toEqual([]);
}

test("admin, vendor and customer: a product made, a release published with progress, downloaded by a holder", async () => {
  const admin = await userWithPassword(t.ctx, PASSWORD, { role: "admin" });
  const carla = await userWithPassword(t.ctx, PASSWORD, {
    email: `carla-${crypto.randomUUID()}@example.com`,
  });
  const vendorEmail = `vera-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const file = randomBytes(5 * 1024 * 1024);
  const confirmAll = (w: Watched) => w.page.on("dialog", (dialog) => void dialog.accept());

  // --- the admin: a vendor, and a product of theirs with an option ------------------------------
  const a = await openPage(origin, { viewport: LAPTOP });
  confirmAll(a);
  await a.page.goto(`${base}/`, { waitUntil: "networkidle" });
  await a.page.getByRole("button", { name: "Sign in", exact: true }).waitFor({ timeout: 10_000 });
  await expectAccessible(a, "sign-in");
  await a.page.screenshot({ path: join(SCREENSHOTS, "sign-in.png") });
  await signInAs(a, admin.email);
  const adminNav = a.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
  await expectAccessible(a, "home");

  await followNav(adminNav, "Users");
  await a.page.getByRole("button", { name: "New user" }).click();
  const newUser = a.page.getByRole("form", { name: "New user" });
  await newUser.getByLabel("Name", { exact: true }).fill("Vera Vendor");
  await newUser.getByLabel("Email", { exact: true }).fill(vendorEmail);
  await newUser.getByLabel("Role", { exact: true }).selectOption("vendor");
  await newUser.getByRole("button", { name: "Create user" }).click();
  const linkField = a.page.getByLabel(`Set-password link for ${vendorEmail}`);
  await linkField.waitFor({ timeout: 10_000 });
  const setPasswordLink = new URL(await linkField.inputValue());
  expect(setPasswordLink.pathname).toBe("/set-password");
  await expectAccessible(a, "users");

  await followNav(adminNav, "Products");
  await a.page.getByRole("link", { name: "New product" }).click();
  const newProduct = a.page.getByRole("form", { name: "New product" });
  await newProduct.getByLabel("Name", { exact: true }).fill("Ultra Perms");
  await newProduct
    .getByLabel("Owner", { exact: true })
    .selectOption({ label: `${isolated("Vera Vendor")} (${isolated(vendorEmail)}, ${isolated("vendor")})` });
  await expectAccessible(a, "new product");
  await newProduct.getByRole("button", { name: "Create product" }).click();
  await a.page.waitForURL((url) => /^\/dashboard\/products\/\d+$/.test(url.pathname), { timeout: 10_000 });
  const productId = Number(new URL(a.page.url()).pathname.split("/").pop());
  await a.page.getByRole("navigation", { name: "Product" }).getByRole("link", { name: "Settings" }).click();
  const addOption = a.page.getByRole("form", { name: "Add option" });
  await addOption.getByLabel("Name", { exact: true }).fill("Standard");
  await addOption.getByLabel("Price", { exact: true }).fill("19.99");
  await addOption.getByRole("button", { name: "Add option" }).click();
  await a.page.getByRole("listitem").filter({ hasText: "Standard" }).getByText("19.99").waitFor({
    timeout: 10_000,
  });
  await expectAccessible(a, "product settings");
  const options = await readJson(
    await fetch(`${base}/api/products/${productId}/options`, { headers: { cookie: await cookieOf(a) } }),
  );
  expect(options.data).toEqual([expect.objectContaining({ name: "Standard", price: 19.99 })]);
  // Carla buys it (recorded by the store): she is the vendor's customer, whom a license may name.
  await createPurchase(t.ctx, carla, { id: productId }, { option_id: options.data[0].id });
  await expectClean(a);
  await a.context.close();

  // --- the vendor: a password from the link, a token, a license for Carla, a release ------------
  const v = await openPage(origin, { viewport: LAPTOP, permissions: ["clipboard-read", "clipboard-write"] });
  confirmAll(v);
  await v.page.goto(`${base}${setPasswordLink.pathname}${setPasswordLink.search}`, {
    waitUntil: "networkidle",
  });
  await v.page.getByLabel("New password", { exact: true }).fill(VENDOR_PASSWORD);
  await v.page.getByLabel("Confirm password", { exact: true }).fill(VENDOR_PASSWORD);
  await expectAccessible(v, "set password");
  await v.page.getByRole("button", { name: "Set password", exact: true }).click();
  await v.page.getByText("Your password is set. Sign in.").waitFor({ timeout: 10_000 });
  await signInAs(v, vendorEmail, VENDOR_PASSWORD);
  const vendorNav = v.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });

  await followNav(vendorNav, "Tokens");
  await v.page.getByRole("button", { name: "New token" }).click();
  await v.page.getByLabel("Name", { exact: true }).fill("CI publish");
  await v.page.getByRole("checkbox", { name: /versions\.publish/ }).check();
  await v.page.getByRole("button", { name: "Create token" }).click();
  const tokenField = v.page.getByLabel("Your new token");
  await tokenField.waitFor({ timeout: 10_000 });
  const token = await tokenField.inputValue();
  await expectAccessible(v, "token shown once");
  const asVendor = await fetch(`${base}/api/products/${productId}`, { headers: bearer(token) });
  expect(asVendor.status).toBe(200);
  expect((await readJson(asVendor)).data.name).toBe("Ultra Perms");
  await v.page.getByRole("button", { name: "Done" }).click();
  await v.page.reload({ waitUntil: "networkidle" });
  await v.page.getByRole("listitem").filter({ hasText: "CI publish" }).waitFor({ timeout: 10_000 });
  // Seen once: after Done and a reload, the secret is nowhere in the page.
  expect(await v.page.content()).not.toContain(token.split("|")[1]);

  await followNav(vendorNav, "Products");
  await v.page.getByRole("link", { name: "Ultra Perms", exact: true }).click();
  await v.page.getByRole("heading", { name: "Ultra Perms", level: 1 }).waitFor({ timeout: 10_000 });
  await v.page.getByRole("navigation", { name: "Product" }).getByRole("link", { name: "Licenses" }).click();
  await v.page.getByRole("button", { name: "New license" }).click();
  await v.page.getByLabel("Owner email", { exact: true }).fill(carla.email);
  await v.page.getByLabel("Max IPs", { exact: true }).fill("2");
  await v.page.getByRole("button", { name: "Create license" }).click();
  const licenseKey = await v.page.getByLabel("New license key").inputValue();
  expect(licenseKey.length).toBeGreaterThan(10);
  await expectAccessible(v, "product licenses");

  // Publish: the second chunk is held until the screenshot of the upload in progress is taken.
  await v.page.goto(`${base}/dashboard/products/${productId}`, { waitUntil: "networkidle" });
  await v.page.getByLabel("Version", { exact: true }).fill("1.0.0");
  await v.page.getByLabel("Title", { exact: true }).fill("Web editor");
  await v.page
    .getByLabel("Changelog", { exact: true })
    .fill("## Web editor\n\nEdit permissions in the browser.\n\n- bulk editing\n- undo");
  await v.page.getByLabel("File", { exact: true }).setInputFiles({
    name: "ultra-perms-1.0.0.jar",
    mimeType: "application/java-archive",
    buffer: Buffer.from(file),
  });
  await expectAccessible(v, "publish form");
  let releaseChunk: () => void = () => {};
  const chunkHeld = new Promise<void>((resolve) => {
    releaseChunk = resolve;
  });
  let patches = 0;
  await v.page.route(
    (url) => url.pathname.startsWith("/api/uploads/"),
    async (route) => {
      if (route.request().method() === "PATCH" && ++patches === 2) await chunkHeld;
      await route.continue();
    },
  );
  const bar = v.page.getByLabel("Upload", { exact: true });
  await v.page.getByRole("button", { name: "Publish", exact: true }).click();
  const progressNow = async () => Number(await bar.evaluate((element) => Reflect.get(element, "value")));
  const midway = await until("the upload's first chunk", progressNow, 10_000);
  expect(midway).toBeGreaterThan(0);
  expect(midway).toBeLessThan(100);
  await v.page.screenshot({ path: join(SCREENSHOTS, "publish-in-progress.png"), fullPage: true });
  releaseChunk();
  await v.page.getByText("Version 1.0.0 is published.").waitFor({ timeout: 30_000 });
  // The form is emptied for the next version, its progress bar with it.
  expect(await v.page.locator("#publish-progress").count()).toBe(0);
  const version = v.page.locator(".version").first();
  expect(await version.textContent()).toContain("ultra-perms-1.0.0.jar, 5 MB");
  await expectAccessible(v, "product with versions");
  await v.page.screenshot({ path: join(SCREENSHOTS, "product-versions.png"), fullPage: true });
  await expectClean(v);
  await v.context.close();

  // --- the customer: notified, downloads the same bytes, resets an address ---------------------
  // The release reaches its holders through the job queue: wait for Carla's notification.
  await until(
    "the holder's notification",
    async () =>
      (await t.ctx.db.select().from(notifications).where(eq(notifications.userId, carla.id))).length,
  );
  // Her software validates the key from this machine: one address in use.
  const validated = await fetch(`${base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: licenseKey }),
  });
  expect((await readJson(validated)).code).toBe("VALID");

  const c = await openPage(origin, { viewport: LAPTOP });
  confirmAll(c);
  await signInAs(c, carla.email);
  const customerNav = c.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
  await c.page.locator(".badge").getByText("1", { exact: false }).waitFor({ timeout: 10_000 });
  expect(await c.page.locator(".badge").textContent()).toBe("1 unread notifications");

  await followNav(customerNav, "Notifications");
  const notification = c.page.locator(".notification").first();
  await notification.waitFor({ timeout: 10_000 });
  expect(await notification.textContent()).toContain("Ultra Perms 1.0.0");
  await expectAccessible(c, "notifications");
  const [download] = await Promise.all([
    c.page.waitForEvent("download"),
    notification.getByRole("link", { name: /^Download/ }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("ultra-perms-1.0.0.jar");
  expect(sha256(new Uint8Array(await Bun.file(await download.path()).arrayBuffer()))).toBe(sha256(file));

  await followNav(customerNav, "Downloads");
  await c.page.locator(".changelog h2").first().waitFor({ timeout: 10_000 });
  expect(await c.page.locator(".changelog h2").first().textContent()).toBe("Web editor");
  await expectAccessible(c, "downloads");

  await followNav(customerNav, "Licenses");
  await c.page.getByRole("heading", { name: "IP addresses in use: 1 of 2" }).waitFor({ timeout: 10_000 });
  expect(await c.page.getByLabel("License key").inputValue()).toBe(licenseKey);
  await expectAccessible(c, "licenses");
  await c.page.screenshot({ path: join(SCREENSHOTS, "customer-licenses.png"), fullPage: true });
  await c.page.getByRole("button", { name: "Reset IPs of Ultra Perms" }).click();
  await c.page.getByRole("heading", { name: "IP addresses in use: 0 of 2" }).waitFor({ timeout: 10_000 });
  const ips = await readJson(await fetch(`${base}/api/licenses`, { headers: { cookie: await cookieOf(c) } }));
  expect(ips.data[0]).toMatchObject({ key: licenseKey, ips: [], ip_resets_left: 2 });
  await expectClean(c);
  await c.context.close();
}, 120_000);

test("the pages the story does not pass through have no serious accessibility violation either, light or dark", async () => {
  const admin = await userWithPassword(t.ctx, PASSWORD, { role: "admin" });
  for (const colorScheme of ["light", "dark"] as const) {
    const w = await openPage(origin);
    await w.page.emulateMedia({ colorScheme });
    try {
      await signInAs(w, admin.email);
      const nav = w.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
      for (const [link, heading] of [
        ["Purchases", "Purchases"],
        ["Products", "Products"],
        ["Versions", "Versions"],
        ["Rollouts", "Rollouts"],
        ["Webhooks", "Webhooks"],
        ["Roles", "Roles"],
        ["API keys", "API keys"],
        ["Tokens", "Personal access tokens"],
        ["Profile", "Profile"],
        ["Licenses", "Licenses"],
        ["Downloads", "Downloads"],
        ["Notifications", "Notifications"],
      ] as const) {
        await followNav(nav, link);
        await w.page.getByRole("heading", { name: heading, level: 1 }).waitFor({ timeout: 10_000 });
        // Past the loading state: the page's own content is what is checked.
        await w.page.waitForLoadState("networkidle");
        await expectAccessible(w, `${link} (${colorScheme})`);
      }
      await expectClean(w);
    } finally {
      await w.context.close();
    }
  }
}, 120_000);
