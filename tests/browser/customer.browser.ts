// A customer's pages in a real browser at a phone's width, against the real API: a customer holding a
// license signs in, sees the license with its key, copies it, sees the address a validation registered
// and resets it (the count drops to 0, a reset is used up); on Downloads sees the newest version's
// changelog rendered from Markdown (no script), downloads the file through the page (its SHA-256
// matches) and opens the older versions; on Notifications marks one read, then all, and the nav
// badge follows; on Profile renames themself and changes their password. Nothing is asked of
// another host, nothing fails. Someone holding nothing sees each page's empty state.
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { notifications } from "../../src/db/schema/index.ts";
import { bearer, readJson } from "../helpers/app.ts";
import { fitsWidth, followNav, listeningDepot, offOrigin, openPage, signInAs } from "../helpers/browser.ts";
import { apiKeyFor, createProduct, createUser, tokenFor } from "../helpers/factories.ts";
import { licenseThroughApi } from "../helpers/licenses.ts";
import { sessionHeaders, signIn, userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const sha256 = (bytes: string | Uint8Array) => createHash("sha256").update(bytes).digest("hex");

// Publishing queues its notification job in the same transaction: pg-boss must be able to send.
const depot = listeningDepot({ jobs: "send" });

/** Publishes through the API as a pipeline does, with a Markdown changelog; the version's JSON. */
async function publish(token: string, productId: number, name: string, changelog: string, bytes: string) {
  const form = new FormData();
  form.append("version_name", name);
  form.append("title", `Release ${name}`);
  form.append("changelog", changelog);
  form.append("file", new File([bytes], `plugin-${name}.jar`));
  const response = await fetch(`${depot.base}/api/products/${productId}/versions`, {
    method: "POST",
    headers: bearer(token),
    body: form,
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).data;
}

/** An unread notification as the fan-out writes it (its plain download URL over APP_URL: the API signs it for its reader). */
async function notify(
  userId: number,
  product: { id: number; name: string },
  version: { id: number; version_number: string; title: string; download_url: string },
) {
  await depot.ctx.db.insert(notifications).values({
    type: "version.published",
    userId,
    versionId: version.id,
    data: {
      product_id: product.id,
      product_name: product.name,
      version_id: version.id,
      version_number: version.version_number,
      title: version.title,
      benefit_name: null,
      download_url: version.download_url,
    },
  });
}

test("a customer sees and copies their license, resets its IPs, downloads, marks notifications read", async () => {
  const vendor = await createUser(depot.ctx, { role: "vendor" });
  const vendorToken = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Ultra Perms" });
  const oldBytes = `old release ${crypto.randomUUID()}`;
  const newBytes = `new release ${crypto.randomUUID()}`;
  const old = await publish(vendorToken, product.id, "1.0.0", "First release.", oldBytes);
  const latest = await publish(
    vendorToken,
    product.id,
    "1.1.0",
    "## Fixed\n\n- The **crash** on start\n\n<script>window.pwned = true</script>\n\n" +
      "![Screenshot](https://cdn.example.com/shot.png)",
    newBytes,
  );

  const customer = await userWithPassword(depot.ctx, PASSWORD);
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const license = await licenseThroughApi(depot.base, apiKey, {
    ownerId: String(customer.id),
    creatorId: String(vendor.id),
    productId: String(product.id),
    maxIps: 3,
  });
  const validated = await fetch(`${depot.base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ key: license.key, ip: "203.0.113.9" }),
  });
  expect((await readJson(validated)).code).toBe("VALID");
  await notify(customer.id, product, old);
  await notify(customer.id, product, latest);

  const w = await openPage(depot.origin, { permissions: ["clipboard-read", "clipboard-write"] });
  const { page } = w;
  try {
    await signInAs(page, depot.base, customer.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });
    const badge = page.locator(".badge");
    await badge.waitFor({ timeout: 10_000 });
    expect(await badge.textContent()).toBe("2 unread notifications");

    // Licenses: the product, the key with Copy, its status, the address in use and the resets left.
    await followNav(nav, "Licenses");
    expect(new URL(page.url()).pathname).toBe("/dashboard/licenses");
    await page.getByRole("heading", { name: "Ultra Perms" }).waitFor({ timeout: 10_000 });
    const key = page.getByLabel("License key");
    expect(await key.inputValue()).toBe(license.key);
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor({ timeout: 5_000 });
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(license.key);
    const card = page
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { name: "Ultra Perms" }) });
    expect(await card.textContent()).toContain("Active");
    expect(await card.textContent()).toContain("never expires");
    await page.getByRole("heading", { name: "IP addresses in use: 1 of 3" }).waitFor();
    expect(await card.textContent()).toContain("203.0.113.9");
    expect(await card.locator("time").count()).toBe(2);
    expect(await card.textContent()).toContain("3 resets left today.");
    expect(await fitsWidth(page)).toBe(true);

    // Reset IPs, after a confirm: the list is read again.
    const dialogs: string[] = [];
    page.once("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole("button", { name: "Reset IPs of Ultra Perms" }).click();
    await page.getByRole("heading", { name: "IP addresses in use: 0 of 3" }).waitFor({ timeout: 10_000 });
    await page.getByText("2 resets left today.").waitFor({ timeout: 10_000 });
    await page.getByText("The addresses were forgotten.").waitFor();
    expect(dialogs).toEqual([expect.stringContaining("Ultra Perms")]);
    expect(await card.textContent()).not.toContain("203.0.113.9");

    // Downloads: the newest version with its changelog rendered on the server, sanitised.
    await followNav(nav, "Downloads");
    await page.getByRole("heading", { name: "Ultra Perms", level: 2 }).waitFor({ timeout: 10_000 });
    await page.getByRole("heading", { name: "Release 1.1.0 1.1.0", level: 3 }).waitFor();
    const changelog = page.locator(".changelog").first();
    await changelog.locator("h2").waitFor({ timeout: 10_000 });
    expect(await changelog.locator("h2").textContent()).toBe("Fixed");
    expect(await changelog.locator("strong").textContent()).toBe("crash");
    expect(await changelog.locator("script").count()).toBe(0);
    expect(await page.evaluate("window.pwned")).toBeUndefined();
    // An image from another host would break the page's promise to ask nothing of other hosts: a link.
    expect(await changelog.locator("img").count()).toBe(0);
    expect(await changelog.getByRole("link", { name: "Screenshot" }).getAttribute("href")).toBe(
      "https://cdn.example.com/shot.png",
    );
    const entry = page.getByRole("article", { name: "Release 1.1.0 1.1.0" });
    const facts = (await entry.locator(".hint").textContent()) ?? "";
    expect(facts).toContain("plugin-1.1.0.jar");
    expect(facts).toContain(`${newBytes.length} bytes`);
    expect(await fitsWidth(page)).toBe(true);

    // The Download link, through the browser with the session cookie: the very bytes published.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      entry.getByRole("link", { name: /^Download/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("plugin-1.1.0.jar");
    const saved = await download.path();
    expect(sha256(await readFile(saved))).toBe(latest.sha256);
    expect(latest.sha256).toBe(sha256(newBytes));

    // Older versions, loaded when opened, each with its changelog and its own link.
    const older = page.getByRole("button", { name: "Older versions of Ultra Perms" });
    expect(await older.getAttribute("aria-expanded")).toBe("false");
    // By keyboard: it takes the visible focus ring, and Enter opens it.
    await older.focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    expect(await older.evaluate((element) => element.matches(":focus-visible"))).toBe(true);
    expect(
      await older.evaluate(
        (element) => element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth,
      ),
    ).toBe("3px");
    await page.keyboard.press("Enter");
    const first = page.getByRole("article", { name: "Release 1.0.0 1.0.0" });
    await first.waitFor({ timeout: 10_000 });
    expect(await older.getAttribute("aria-expanded")).toBe("true");
    await first.getByText("First release.").waitFor({ timeout: 10_000 });
    expect(await first.getByRole("link", { name: /^Download/ }).getAttribute("href")).toBe(
      `/api/products/${product.id}/versions/${old.id}/download`,
    );
    expect(await fitsWidth(page)).toBe(true);

    // Notifications: newest first, unread marked; marking one and then all updates the badge.
    await followNav(nav, "Notifications");
    await page.getByText("2 unread.").waitFor({ timeout: 10_000 });
    const items = page.locator(".notification");
    expect(await items.count()).toBe(2);
    expect(await items.nth(0).textContent()).toContain("Ultra Perms 1.1.0");
    expect(await items.nth(0).textContent()).toContain("Unread");
    expect(
      await items
        .nth(0)
        .getByRole("link", { name: /^Download/ })
        .getAttribute("href"),
    ).toBe(`/api/products/${product.id}/versions/${latest.id}/download`);
    await page.getByRole("button", { name: /^Mark as read\W+Ultra Perms 1\.1\.0$/ }).click();
    await page.getByText("1 unread.").waitFor({ timeout: 10_000 });
    // Locators, not waitForFunction: its string predicate is an eval, which the dashboard's CSP refuses.
    await page.locator(".badge", { hasText: /^1 unread notifications$/ }).waitFor({ timeout: 10_000 });
    expect(await items.nth(0).textContent()).not.toContain("Unread");
    await page.getByRole("button", { name: "Mark all as read" }).click();
    await page.getByText("All read.").waitFor({ timeout: 10_000 });
    await page.locator(".badge").waitFor({ state: "detached", timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);

    // Profile: a new name, saved and shown on every page from then on.
    await followNav(nav, "Profile");
    const name = page.getByLabel("Name", { exact: true });
    await name.waitFor({ timeout: 10_000 });
    await name.fill("");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("#profile-name-error").waitFor({ timeout: 10_000 });
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    await name.fill("Casey Renamed");
    expect(await page.locator("#profile-name-error").count()).toBe(0);
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("Your name is saved.").waitFor({ timeout: 10_000 });

    // Change password: a wrong current password is refused beside its field, then the change succeeds
    // and this browser stays signed in.
    await page.getByLabel("Current password").fill("not my password");
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByLabel("Confirm password").fill("a brand new password");
    await page.getByRole("button", { name: "Change password" }).click();
    const currentError = page.locator("#current-password-error");
    await currentError.waitFor({ timeout: 10_000 });
    expect(await currentError.textContent()).toBe("The password is incorrect.");
    expect(await page.getByLabel("Current password").getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Current password").fill(PASSWORD);
    expect(await currentError.count()).toBe(0);
    expect(await page.getByLabel("Current password").getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password is changed.").waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);

    await followNav(nav, "Home");
    await page.getByRole("heading", { name: "Welcome, Casey Renamed" }).waitFor({ timeout: 10_000 });
    // The new password signs in (signIn throws on anything but 200).
    expect((await signIn(depot.base, customer.email, "a brand new password")).response.status).toBe(200);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("someone holding nothing sees the empty states, saying what to do next", async () => {
  const nobody = await userWithPassword(depot.ctx, PASSWORD);
  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, nobody.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });
    await followNav(nav, "Licenses");
    await page.getByText("You hold no licenses yet.").waitFor({ timeout: 10_000 });
    await followNav(nav, "Downloads");
    await page.getByText("Nothing to download yet").waitFor({ timeout: 10_000 });
    await followNav(nav, "Notifications");
    await page.getByText("No notifications yet.").waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("a reset refused by the server (429) shows its message; loading states show while lists load", async () => {
  const vendor = await createUser(depot.ctx, { role: "vendor" });
  const product = await createProduct(depot.ctx, vendor, { name: "Busy Plugin" });
  const customer = await userWithPassword(depot.ctx, PASSWORD);
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const created = await fetch(`${depot.base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({
      ownerId: String(customer.id),
      creatorId: String(vendor.id),
      productId: String(product.id),
    }),
  });
  const license = await readJson(created);
  // Two of today's three resets used elsewhere (another browser).
  const elsewhere = await signIn(depot.base, customer.email, PASSWORD);
  const resetElsewhere = () =>
    fetch(`${depot.base}/api/licenses/${license.id}/ips`, {
      method: "DELETE",
      headers: sessionHeaders(elsewhere),
    });
  for (let i = 0; i < 2; i++) expect((await resetElsewhere()).status).toBe(204);

  const w = await openPage(depot.origin);
  const { page } = w;
  try {
    await signInAs(page, depot.base, customer.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.waitFor({ state: "attached", timeout: 10_000 });

    // The loading state while the list is on its way.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(
      (url) => url.pathname === "/api/licenses",
      async (route) => {
        await held;
        await route.continue();
      },
      { times: 1 },
    );
    await followNav(nav, "Licenses");
    await page.getByText("Loading licenses…").waitFor({ timeout: 10_000 });
    release();
    await page.getByText("1 reset left today.").waitFor({ timeout: 10_000 });

    // The last one is used elsewhere meanwhile: this page's reset is refused, in the server's words.
    expect((await resetElsewhere()).status).toBe(204);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Reset IPs of Busy Plugin" }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor({ timeout: 10_000 });
    expect(await alert.textContent()).toBe("Too Many Attempts.");
    // The list was read again: none left, and the button says so by being off.
    await page.getByText("No resets left today.").waitFor({ timeout: 10_000 });
    expect(await page.getByRole("button", { name: "Reset IPs of Busy Plugin" }).isDisabled()).toBe(true);
    expect(await fitsWidth(page)).toBe(true);
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);
