// The signed-in layout in a real browser: the sidebar groups what each role does and leaves out what
// it cannot use (those pages say "Page not found"), folds into a Menu on a phone, the admin's Licenses
// are the ones their products sold (a table that sorts), roles are edited and deleted with a
// dismissible notice, and axe-core finds no serious violation, light or dark.
import { expect, test } from "bun:test";
import { json, readJson } from "../helpers/app.ts";
import { seriousViolations } from "../helpers/axe.ts";
import {
  fitsWidth,
  followNav,
  listeningDepot,
  offOrigin,
  openPage,
  signInAs,
  type Watched,
} from "../helpers/browser.ts";
import { createProduct, createRole, createUser, tokenFor } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const depot = listeningDepot();

const sidebar = (w: Watched) => w.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
const linksOf = (w: Watched) => sidebar(w).getByRole("link", { includeHidden: true }).allTextContents();
const groupsOf = (w: Watched) => sidebar(w).locator(".nav-group-label").allTextContents();

async function expectAccessible(w: Watched, what: string) {
  await w.page.waitForLoadState("networkidle");
  expect({ what, violations: await seriousViolations(w.page) }).toEqual({ what, violations: [] });
}

test("a customer's sidebar has their own pages; the others are not found; the phone's menu opens and closes", async () => {
  const customer = await userWithPassword(depot.ctx, PASSWORD);
  const w = await openPage(depot.origin);
  try {
    await signInAs(w.page, depot.base, customer.email, PASSWORD);
    expect(await groupsOf(w)).toEqual(["You"]);
    expect(await linksOf(w)).toEqual(["Home", "Licenses", "Downloads", "Notifications", "Profile"]);

    // On a phone the links wait behind Menu.
    const menu = w.page.getByRole("button", { name: "Menu", exact: true });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await sidebar(w).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    const downloads = sidebar(w).getByRole("link", { name: "Downloads", exact: true });
    expect(await downloads.isVisible()).toBe(true);
    expect(await fitsWidth(w.page)).toBe(true);
    await expectAccessible(w, "customer's open menu");
    // A link followed closes the menu on the next page.
    await downloads.click();
    await w.page.getByRole("heading", { name: "Downloads", level: 1 }).waitFor({ timeout: 10_000 });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await sidebar(w).isVisible()).toBe(false);

    // What a customer cannot use is no page for them, even by its address.
    for (const path of ["webhooks", "tokens", "purchases", "products", "sold-licenses", "roles", "users"]) {
      await w.page.goto(`${depot.base}/dashboard/${path}`, { waitUntil: "networkidle" });
      await w.page.getByRole("heading", { name: "Page not found", level: 1 }).waitFor({ timeout: 10_000 });
    }
    expect(offOrigin(w)).toEqual([]);
    expect(w.problems).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 60_000);

test("at 1,280 px the sidebar shows its groups without a menu; a vendor sees Sell and Ship, not Admin", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const w = await openPage(depot.origin, { viewport: null });
  try {
    await signInAs(w.page, depot.base, vendor.email, PASSWORD);
    expect(await groupsOf(w)).toEqual(["Sell", "Ship", "You"]);
    expect(await linksOf(w)).toEqual([
      "Home",
      "Products",
      "Licenses",
      "Purchases",
      "Versions",
      "Rollouts",
      "Webhooks",
      "Downloads",
      "Notifications",
      "Tokens",
      "Profile",
    ]);
    expect(await w.page.getByRole("button", { name: "Menu", exact: true }).isVisible()).toBe(false);
    expect(await sidebar(w).isVisible()).toBe(true);
    const home = sidebar(w).getByRole("link", { name: "Home", exact: true });
    expect(await home.getAttribute("aria-current")).toBe("page");
    for (const path of ["roles", "users", "api-keys", "products/new"]) {
      await w.page.goto(`${depot.base}/dashboard/${path}`, { waitUntil: "networkidle" });
      await w.page.getByRole("heading", { name: "Page not found", level: 1 }).waitFor({ timeout: 10_000 });
    }
  } finally {
    await w.context.close();
  }
}, 60_000);

test("the admin's Licenses are those their products sold, in a table that sorts", async () => {
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  const adminToken = await tokenFor(depot.ctx, admin);
  const alpha = await createProduct(depot.ctx, admin, { name: "Alpha Editor" });
  const beta = await createProduct(depot.ctx, admin, { name: "Beta Player" });
  const buyers = await Promise.all(
    ["zoe", "adam", "mia"].map((name) =>
      createUser(depot.ctx, { email: `${name}-${crypto.randomUUID().slice(0, 6)}@example.com` }),
    ),
  );
  const sell = async (product: { id: number }, owner: { email: string }, maxIps: number) => {
    const response = await fetch(
      `${depot.base}/api/products/${product.id}/licenses`,
      json({ owner_email: owner.email, max_ips: maxIps }, { token: adminToken }),
    );
    expect(response.status).toBe(201);
  };
  await sell(alpha, buyers[0] as { email: string }, 3);
  await sell(beta, buyers[1] as { email: string }, 1);
  await sell(alpha, buyers[2] as { email: string }, 2);

  for (const colorScheme of ["light", "dark"] as const) {
    const w = await openPage(depot.origin);
    await w.page.emulateMedia({ colorScheme });
    try {
      await signInAs(w.page, depot.base, admin.email, PASSWORD);
      expect(await groupsOf(w)).toEqual(["Sell", "Ship", "Admin", "You"]);
      await followNav(sidebar(w), "Licenses");
      await w.page.getByRole("heading", { name: "Licenses", level: 1 }).waitFor({ timeout: 10_000 });
      expect(new URL(w.page.url()).pathname).toBe("/dashboard/sold-licenses");
      const table = w.page.getByRole("table", { name: "Licenses you sold" });
      await table.waitFor({ timeout: 10_000 });
      expect(await w.page.getByText("You hold no licenses yet").count()).toBe(0);
      const owners = async () =>
        (await table.locator("tbody tr td:nth-child(3) .hint").allTextContents()).map(
          (email) => email.split("-")[0],
        );
      expect((await owners()).length).toBe(3);

      const ownerHeader = table.getByRole("columnheader", { name: /Owner/ });
      await ownerHeader.getByRole("button").click();
      expect(await ownerHeader.getAttribute("aria-sort")).toBe("ascending");
      expect(await owners()).toEqual(["adam", "mia", "zoe"]);
      await ownerHeader.getByRole("button").click();
      expect(await ownerHeader.getAttribute("aria-sort")).toBe("descending");
      expect(await owners()).toEqual(["zoe", "mia", "adam"]);
      const ips = table.getByRole("columnheader", { name: /IPs/ });
      await ips.getByRole("button").click();
      expect(await table.locator("tbody tr td:nth-child(5)").allTextContents()).toEqual([
        "0 of 1",
        "0 of 2",
        "0 of 3",
      ]);
      expect(await fitsWidth(w.page)).toBe(true);
      await expectAccessible(w, `sold licenses (${colorScheme})`);
      // Each row leads to its product's own licenses page.
      await table
        .getByRole("row")
        .filter({ hasText: "Beta Player" })
        .getByRole("link", { name: /Manage/ })
        .click();
      await w.page.waitForURL((url) => url.pathname === `/dashboard/products/${beta.id}/licenses`);
      expect(w.problems).toEqual([]);
    } finally {
      await w.context.close();
    }
  }
}, 90_000);

test("an admin edits a role (its error gone once the name changes) and deletes it; built-in roles stay", async () => {
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  const role = await createRole(depot.ctx, []);
  for (const colorScheme of ["light", "dark"] as const) {
    const w = await openPage(depot.origin);
    await w.page.emulateMedia({ colorScheme });
    w.page.on("dialog", (dialog) => void dialog.accept());
    try {
      await signInAs(w.page, depot.base, admin.email, PASSWORD);
      await w.page.goto(`${depot.base}/dashboard/roles`, { waitUntil: "networkidle" });
      const table = w.page.getByRole("table", { name: "Roles" });
      await table.waitFor({ timeout: 10_000 });
      // Built in: no Edit, no Delete.
      for (const builtIn of ["admin", "vendor", "customer"]) {
        const row = table
          .getByRole("row")
          .filter({ has: w.page.getByRole("cell", { name: builtIn, exact: true }) });
        expect(await row.getByRole("button").count()).toBe(0);
        expect(await row.getByText("Built in").count()).toBe(1);
      }
      await expectAccessible(w, `roles (${colorScheme})`);
      if (colorScheme === "dark") continue;

      await table.getByRole("button", { name: `Edit ${role.name}` }).click();
      const form = w.page.getByRole("form", { name: `Edit role ${role.name}` });
      const name = form.getByLabel("Name", { exact: true });
      expect(await name.inputValue()).toBe(role.name);
      // A taken name: the 422 beside Name, gone as soon as the name changes.
      await name.fill("vendor");
      await form.getByRole("button", { name: "Save role" }).click();
      const nameError = form.getByText("The name has already been taken.");
      await nameError.waitFor({ timeout: 10_000 });
      expect(await name.getAttribute("aria-invalid")).toBe("true");
      await name.fill("support-desk");
      expect(await nameError.count()).toBe(0);
      expect(await name.getAttribute("aria-invalid")).toBeNull();
      await form.getByRole("checkbox", { name: /users\.view/ }).check();
      await expectAccessible(w, "role edit form");
      await form.getByRole("button", { name: "Save role" }).click();

      const notice = w.page.getByRole("status").filter({ hasText: "The role support-desk is saved." });
      await notice.waitFor({ timeout: 10_000 });
      const row = table.getByRole("row").filter({ hasText: "support-desk" });
      await row.waitFor({ timeout: 10_000 });
      expect((await row.getByRole("cell").allTextContents()).slice(0, 3)).toEqual([
        "support-desk",
        "users.view",
        "0",
      ]);
      const saved = await readJson(
        await fetch(`${depot.base}/api/admin/roles`, {
          headers: { authorization: `Bearer ${await tokenFor(depot.ctx, admin)}` },
        }),
      );
      expect(saved.data.find((r: { id: number }) => r.id === role.id)).toMatchObject({
        name: "support-desk",
        permissions: ["users.view"],
      });
      await notice.getByRole("button", { name: "Dismiss" }).click();
      expect(await notice.count()).toBe(0);

      await row.getByRole("button", { name: "Delete support-desk" }).click();
      await w.page.getByRole("status").filter({ hasText: "The role support-desk is deleted." }).waitFor({
        timeout: 10_000,
      });
      // The notice comes with the answer; the list is read again after it.
      await table.getByRole("row").filter({ hasText: "support-desk" }).waitFor({
        state: "detached",
        timeout: 10_000,
      });
      expect(await fitsWidth(w.page)).toBe(true);
      expect(w.problems).toEqual([]);
    } finally {
      await w.context.close();
    }
  }
}, 90_000);

test("a vendor's Home: the overview's numbers are the stats API's, and the getting-started list ticks off", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const vendorToken = await tokenFor(depot.ctx, vendor);
  const product = await createProduct(depot.ctx, vendor, { name: "Gamma Tool" });
  const buyer = await createUser(depot.ctx);
  // Sold by an admin on the vendor's behalf: the vendor's first license all the same.
  const adminToken = await tokenFor(depot.ctx, await createUser(depot.ctx, { role: "admin" }));
  const sold = await fetch(
    `${depot.base}/api/products/${product.id}/licenses`,
    json({ owner_email: buyer.email }, { token: adminToken }),
  );
  const created = await readJson(sold);
  expect({ status: sold.status, created }).toMatchObject({ status: 201 });
  const validate = (key: string) =>
    fetch(`${depot.base}/api/v1/licenses/validate`, json({ key, productId: String(product.id) }));
  for (let i = 0; i < 3; i++) await validate(created.data.key);
  await validate("NOT-A-KEY");
  // Counts are written every few seconds: wait until the API has them.
  let stats = { series: { validations: [] as { code: string; count: number }[] } };
  for (let tries = 0; tries < 100; tries++) {
    stats = await readJson(
      await fetch(`${depot.base}/api/products/${product.id}/stats?series=validations`, {
        headers: { authorization: `Bearer ${vendorToken}` },
      }),
    );
    if (stats.series.validations.reduce((sum, row) => sum + row.count, 0) >= 4) break;
    await Bun.sleep(200);
  }
  const byCode = Object.fromEntries(stats.series.validations.map((row) => [row.code, row.count]));
  expect(byCode.VALID).toBe(3);

  for (const viewport of [null, undefined]) {
    const w = await openPage(depot.origin, viewport === null ? { viewport: null } : {});
    try {
      await signInAs(w.page, depot.base, vendor.email, PASSWORD);
      const overview = w.page.getByRole("region", { name: "The last 30 days" });
      await overview.waitFor({ timeout: 10_000 });
      const tile = (name: string) =>
        overview.locator(".stat-tiles div").filter({ hasText: name }).locator("dd");
      expect(await tile("Validations").textContent()).toBe((4).toLocaleString());
      expect(await tile("Products").textContent()).toBe("1");
      // The chart's numbers are under "Show the numbers"; its last row is today, the last column the total.
      await overview.getByText("Show the numbers").first().click();
      const table = overview.getByRole("table", { name: "Validations per day by outcome" });
      const headers = (await table.getByRole("columnheader").allTextContents()).slice(1, -1);
      const cells = await table.locator("tbody tr").last().getByRole("cell").allTextContents();
      const shown = Object.fromEntries(headers.map((code, index) => [code, Number(cells[index])]));
      expect(shown).toEqual(byCode);

      const steps = w.page.getByRole("region", { name: "Getting started" });
      expect(await steps.getByText("3 of 5 done").count()).toBe(1);
      expect(await steps.locator("li.done").allTextContents()).toEqual([
        "✓ Done: Get a product: an admin creates it for you",
        "✓ Done: Make a token for your CI to publish with",
        "✓ Done: Create a first license",
      ]);
      expect(await fitsWidth(w.page)).toBe(true);
      await expectAccessible(w, `vendor home (${viewport === null ? "1,280" : "375"} px)`);
      expect(offOrigin(w)).toEqual([]);
      expect(w.problems).toEqual([]);
    } finally {
      await w.context.close();
    }
  }
}, 90_000);
