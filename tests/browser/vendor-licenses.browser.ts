// A vendor's license and webhook pages in a real browser at a phone's width, against the real API, the
// real job worker and a real receiving server: the vendor signs in, opens a product's licenses page
// directly, creates a license (a 422 first for an unknown e-mail), sees its key, finds it by the
// customer's e-mail, sees an address registered by a validation, forgets it, revokes the license; then
// registers a webhook endpoint (its secret shown once), publishes a version, sees the delivery and
// sends it again: the receiver hears it twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readJson } from "../helpers/app.ts";
import {
  cellUnder,
  fitsWidth,
  followNav,
  listeningDepot,
  offOrigin,
  openPage,
  rowUnder,
  signInAs,
} from "../helpers/browser.ts";
import { apiKeyFor, createProduct, createPurchase, createUser, tokenFor } from "../helpers/factories.ts";
import { until } from "../helpers/inbox.ts";
import { publishedVersion } from "../helpers/publish.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const KEY = /^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/;
let receiver: ReturnType<typeof Bun.serve>;
const received: { id: string | null; body: string }[] = [];

const depot = listeningDepot({ env: { WEBHOOK_ALLOW_PRIVATE: "true" }, jobs: "workers" });
beforeAll(() => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ id: request.headers.get("webhook-id"), body: await request.text() });
      return new Response(null, { status: 204 });
    },
  });
});
afterAll(async () => {
  await receiver?.stop(true);
});

async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(100);
  }
  return check();
}

test("a vendor manages a product's licenses and sends a webhook delivery again", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Carla Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Ultra Perms" });
  await createPurchase(depot.ctx, customer, product);
  const apiKey = (await apiKeyFor(depot.ctx)).key;
  const w = await openPage(depot.origin);
  const { page } = w;
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  try {
    await signInAs(page, depot.base, vendor.email, PASSWORD);

    // The licenses page, opened directly: the product's name in the heading, the empty state.
    await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
    await page
      .getByRole("heading", { name: "Licenses of Ultra Perms", level: 1 })
      .waitFor({ timeout: 10_000 });
    await page.getByText("No licenses yet.").waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);

    // An unknown e-mail: the server's 422 beside the field.
    await page.getByRole("button", { name: "New license" }).click();
    const owner = page.getByLabel("Owner email", { exact: true });
    await owner.fill("nobody@example.com");
    await page.getByRole("button", { name: "Create license" }).click();
    const ownerError = page.locator("#license-owner-error");
    await ownerError.waitFor({ timeout: 10_000 });
    expect(await ownerError.textContent()).toBe(
      "No customer of this product's owner has this e-mail address.",
    );
    expect(await owner.getAttribute("aria-invalid")).toBe("true");

    // Another e-mail takes the error away: it was about the one typed before.
    await owner.fill(customer.email);
    expect(await ownerError.count()).toBe(0);
    expect(await owner.getAttribute("aria-invalid")).toBeNull();
    await page.getByLabel("Expires", { exact: true }).fill("2030-06-30");
    await page.getByLabel("Max IPs", { exact: true }).fill("2");
    await page.getByRole("button", { name: "Create license" }).click();
    const shown = page.getByLabel("New license key");
    await shown.waitFor({ timeout: 10_000 });
    const key = await shown.inputValue();
    expect(key).toMatch(KEY);
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole("button", { name: "Done" }).click();

    // Search by the customer's e-mail finds it; its row: owner, no policy, status, seats, IPs, expiry.
    const search = page.getByLabel("Search by key or owner");
    await search.fill(customer.email);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const table = page.getByRole("table", { name: "Licenses" });
    const bodyRows = table.locator("tbody").getByRole("row");
    const row = bodyRows.filter({ hasText: "Carla Customer" });
    // The search's answer replaces the list (which already showed the license): wait for it alone.
    await until("the search's one result", async () => (await bodyRows.count()) === 1, 10_000);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getByLabel("Key").inputValue()).toBe(key);
    const cell = async (header: string) =>
      ((await (await cellUnder(table, row, header)).textContent()) ?? "").trim();
    expect(await cell("Owner")).toBe(`Carla Customer ${customer.email}`);
    expect(await cell("Policy")).toBe("—");
    expect(await cell("Status")).toBe("Active");
    expect(await cell("Seats")).toBe("0 (uncounted)");
    expect(await cell("IPs")).toBe("0/2");
    const expiry = (await cellUnder(table, row, "Expires")).locator("time");
    expect(await expiry.getAttribute("datetime")).toMatch(/^2030-0[67]-\d\dT/);
    // A search that matches nothing says so.
    await search.fill("nothing-like-this");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText("No license matches “nothing-like-this”.").waitFor({ timeout: 10_000 });

    // An address registered by the customer's software (as a shop's server vouches for it).
    const validation = await fetch(`${depot.base}/api/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ key, productId: String(product.id), ip: "203.0.113.9" }),
    });
    expect((await readJson(validation)).code).toBe("VALID");
    await search.fill(key.slice(0, 11).toLowerCase());
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await row.getByText("1/2").waitFor({ timeout: 10_000 });
    const ipsButton = row.getByRole("button", { name: "IPs" });
    await ipsButton.click();
    expect(await ipsButton.getAttribute("aria-expanded")).toBe("true");
    // The addresses open in the row right under the license's, the panel the button controls.
    const panel = rowUnder(row).locator(`#${await ipsButton.getAttribute("aria-controls")}`);
    await panel.getByText("203.0.113.9").waitFor({ timeout: 10_000 });
    expect(await panel.locator("time").count()).toBe(2);
    expect(await fitsWidth(page)).toBe(true);
    await panel.getByRole("button", { name: "Forget 203.0.113.9" }).click();
    await panel.getByText("No addresses registered").waitFor({ timeout: 10_000 });
    await row.getByText("0/2").waitFor({ timeout: 10_000 });

    // Revoke, after a confirm: the license stays listed, as revoked, and validation says so.
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("Revoked").waitFor({ timeout: 10_000 });
    expect(await row.getByRole("button", { name: "Revoke" }).count()).toBe(0);
    expect(dialogs).toEqual([
      expect.stringContaining("203.0.113.9"),
      expect.stringContaining(customer.email),
    ]);
    const revoked = await fetch(`${depot.base}/api/v1/licenses/validate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key }),
    });
    expect((await readJson(revoked)).code).toBe("REVOKED");

    // Webhooks, from the navigation: the empty state, then a new endpoint and its secret, once.
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await followNav(nav, "Webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor({ timeout: 10_000 });
    await page.getByText("No endpoints yet.").waitFor({ timeout: 10_000 });
    const url = `http://127.0.0.1:${receiver.port}/depot`;
    await page.getByRole("button", { name: "New endpoint" }).click();
    await page.getByLabel("URL", { exact: true }).fill(url);
    const published = page.getByRole("checkbox", { name: /version\.published/ });
    const yanked = page.getByRole("checkbox", { name: /version\.yanked/ });
    // Every event is offered, and checked to begin with.
    expect(await published.isChecked()).toBe(true);
    expect(await yanked.isChecked()).toBe(true);
    // No event: the server's 422 beside the events, until one is checked again.
    await published.uncheck();
    await yanked.uncheck();
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const eventsError = page.locator("#webhook-events-error");
    await eventsError.waitFor({ timeout: 10_000 });
    expect(await eventsError.textContent()).toBe("The events field must have at least 1 items.");
    expect(await page.getByRole("group", { name: "Events" }).getAttribute("aria-describedby")).toBe(
      "webhook-events-error",
    );
    expect(await page.locator("form .error").count()).toBe(0);
    await published.check();
    expect(await eventsError.count()).toBe(0);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const secret = page.getByLabel("Signing secret");
    await secret.waitFor({ timeout: 10_000 });
    expect(await secret.inputValue()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole("button", { name: "Done" }).click();
    const endpoint = page.locator("li.item").filter({ hasText: url });
    await endpoint.waitFor({ timeout: 10_000 });
    expect(await page.getByLabel("Signing secret").count()).toBe(0);

    // A publish makes a delivery; the worker sends it.
    await publishedVersion(depot.base, await tokenFor(depot.ctx, vendor), product.id, {
      name: "2.0.0",
      bytes: "release",
    });
    expect(await eventually(() => received.length === 1)).toBe(true);
    const deliveriesButton = endpoint.getByRole("button", { name: "Deliveries" });
    await deliveriesButton.click();
    expect(await deliveriesButton.getAttribute("aria-expanded")).toBe("true");
    const delivery = endpoint.locator("li.row");
    await delivery.waitFor({ timeout: 10_000 });
    // The status may still be on its way from the worker to the database: refresh until it shows.
    expect(
      await eventually(async () => {
        if (((await delivery.textContent()) ?? "").includes("Succeeded")) return true;
        await endpoint.getByRole("button", { name: "Refresh" }).click();
        await Bun.sleep(200);
        return false;
      }),
    ).toBe(true);
    const deliveryText = (await delivery.textContent()) ?? "";
    expect(deliveryText).toContain("version.published");
    expect(await delivery.locator(".last-response").textContent()).toBe("204");
    expect(await delivery.locator("time").count()).toBe(1);
    expect(await fitsWidth(page)).toBe(true);

    // Send again: the receiver hears the same delivery a second time.
    await delivery.getByRole("button", { name: "Send again" }).click();
    await endpoint.getByText("Queued: it is sent again in a moment.").waitFor({ timeout: 10_000 });
    expect(await eventually(() => received.length === 2)).toBe(true);
    expect(received[1]?.id).toBe(received[0]?.id ?? "");
    expect(received[1]?.body).toBe(received[0]?.body ?? "");
    expect(
      await eventually(async () => {
        await endpoint.getByRole("button", { name: "Refresh" }).click();
        await Bun.sleep(200);
        const text = (await delivery.textContent()) ?? "";
        return text.includes("Succeeded") && /Attempts\s*2/.test(text);
      }),
    ).toBe(true);

    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);
