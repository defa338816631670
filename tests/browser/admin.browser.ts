// The admin pages in a real browser at a phone's width, against the real API: an admin signs in,
// creates a vendor (a duplicate e-mail's 422 first, beside Email), copies the set-password link and
// opens it in a fresh browser context to set the vendor's password; creates a product owned by the
// vendor, gives it an option and a benefit in its Settings, records a purchase for a customer, and
// creates an API key that works against the license API until it is revoked. The vendor's session
// then sees no admin links and is refused the Users page.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { users } from "../../src/db/schema/index.ts";
import { readJson } from "../helpers/app.ts";
import {
  cookieOf,
  fitsWidth,
  followNav,
  listeningDepot,
  offOrigin,
  openPage,
  signInAs,
  type Watched,
} from "../helpers/browser.ts";
import { createProduct, createUser } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const VENDOR_PASSWORD = "the vendor's own password";

const depot = listeningDepot();

/** Where the app navigated to, once it got there. */
async function waitForPath(page: Page, pattern: RegExp) {
  await page.waitForURL((url) => pattern.test(url.pathname), { timeout: 10_000 });
  return new URL(page.url()).pathname;
}

function expectClean(w: Watched) {
  expect(offOrigin(w)).toEqual([]);
  expect(w.pageErrors).toEqual([]);
  expect(w.problems).toEqual([]);
}

test("an admin creates a vendor, their product, a purchase and an API key; the vendor sees no admin pages", async () => {
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  const customer = await createUser(depot.ctx, { name: "Cleo Customer" });
  const vendorEmail = `vera-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const w = await openPage(depot.origin, { permissions: ["clipboard-read", "clipboard-write"] });
  const { page } = w;
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  let vendorPage: Watched | undefined;
  try {
    await signInAs(page, depot.base, admin.email, PASSWORD);
    const nav = page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    expect(await nav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
      "Home",
      "Products",
      "Licenses",
      "Purchases",
      "Versions",
      "Rollouts",
      "Webhooks",
      "Users",
      "Roles",
      "API keys",
      "Stripe",
      "Downloads",
      "Notifications",
      "Tokens",
      "Profile",
    ]);

    // Users: a duplicate e-mail first, refused beside Email; then the vendor.
    await followNav(nav, "Users");
    await page.getByRole("heading", { name: "Users", level: 1 }).waitFor({ timeout: 10_000 });
    await page.getByText(admin.email).waitFor({ timeout: 10_000 });
    // "New user" opens the form in its panel, the cursor in its first input.
    await page.getByRole("button", { name: "New user" }).click();
    const form = page.getByRole("form", { name: "New user" });
    await form.getByLabel("Name", { exact: true }).waitFor({ timeout: 10_000 });
    expect(
      await form.getByLabel("Name", { exact: true }).evaluate((e) => e.ownerDocument.activeElement === e),
    ).toBe(true);
    await form.getByLabel("Name", { exact: true }).fill("Vera Vendor");
    await form.getByLabel("Email", { exact: true }).fill(customer.email.toUpperCase());
    await form.getByLabel("Role", { exact: true }).selectOption("vendor");
    await form.getByRole("button", { name: "Create user" }).click();
    const emailError = page.locator("#new-user-email-error");
    await emailError.waitFor({ timeout: 10_000 });
    expect(await emailError.textContent()).toBe("The email has already been taken.");
    expect(await form.getByLabel("Email", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await fitsWidth(page)).toBe(true);

    await form.getByLabel("Email", { exact: true }).fill(vendorEmail);
    expect(await emailError.count()).toBe(0);
    expect(await form.getByLabel("Email", { exact: true }).getAttribute("aria-invalid")).toBeNull();
    await form.getByRole("button", { name: "Create user" }).click();
    const linkField = page.getByLabel(`Set-password link for ${vendorEmail}`);
    await linkField.waitFor({ timeout: 10_000 });
    const created = (await page.locator(".created").textContent()) ?? "";
    expect(created).toContain("User “Vera Vendor” created");
    expect(created).toContain(`Send this link to ${vendorEmail}; it expires in 72 hours`);
    expect(created).toContain("depot has not e-mailed it");
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor({ timeout: 5_000 });
    const copied = await page.evaluate<string>("navigator.clipboard.readText()");
    expect(copied).toBe(await linkField.inputValue());
    expect(copied).toMatch(/^http:\/\/depot\.test\/set-password\?token=/);
    // The vendor is listed with their role.
    const vendorRow = page.getByRole("listitem").filter({ hasText: vendorEmail });
    await vendorRow.waitFor({ timeout: 10_000 });
    expect(await vendorRow.textContent()).toContain("Role: vendor");
    expect(await fitsWidth(page)).toBe(true);

    // The link, in a fresh browser (APP_URL is depot.test: the same path at the test server).
    const link = new URL(copied);
    vendorPage = await openPage(depot.origin);
    const vp = vendorPage.page;
    await vp.goto(`${depot.base}${link.pathname}${link.search}`, { waitUntil: "networkidle" });
    await vp.getByText(`Choose a password for ${vendorEmail}`).waitFor({ timeout: 10_000 });
    await vp.getByLabel("New password", { exact: true }).fill(VENDOR_PASSWORD);
    await vp.getByLabel("Confirm password", { exact: true }).fill(VENDOR_PASSWORD);
    await vp.getByRole("button", { name: "Set password", exact: true }).click();
    await vp.getByText("Your password is set. Sign in.").waitFor({ timeout: 10_000 });

    // A new product owned by the vendor: on 201 the app goes to the product's page.
    await page.goto(`${depot.base}/dashboard/products/new`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "New product", level: 1 }).waitFor({ timeout: 10_000 });
    const productForm = page.getByRole("form", { name: "New product" });
    await productForm.getByLabel("Name", { exact: true }).fill("Vera's Plugin");
    const owner = productForm.getByLabel("Owner", { exact: true });
    await owner.selectOption({
      label: `${isolated("Vera Vendor")} (${isolated(vendorEmail)}, ${isolated("vendor")})`,
    });
    await productForm.getByLabel("Description", { exact: true }).fill("Does things.");
    expect(await fitsWidth(page)).toBe(true);
    await productForm.getByRole("button", { name: "Create product" }).click();
    const productPath = await waitForPath(page, /^\/dashboard\/products\/\d+$/);
    const productId = Number(productPath.split("/").pop());
    const product = await readJson(
      await fetch(`${depot.base}/api/products/${productId}`, { headers: { cookie: await cookieOf(w) } }),
    );
    const [vendor] = await depot.ctx.db.select().from(users).where(eq(users.email, vendorEmail));
    expect(product.data).toMatchObject({
      name: "Vera's Plugin",
      user_id: vendor?.id,
      slug: "vera-s-plugin",
      description: "Does things.",
      hidden: "0",
      disabled: "0",
    });

    // Its settings: an option (a price with three decimals refused beside Price), then a benefit.
    await page.goto(`${depot.base}${productPath}/settings`, { waitUntil: "networkidle" });
    await page
      .getByRole("heading", { name: "Settings of Vera's Plugin", level: 1 })
      .waitFor({ timeout: 10_000 });
    await page.getByText("No options yet.").waitFor({ timeout: 10_000 });
    const optionForm = page.getByRole("form", { name: "Add option" });
    await optionForm.getByLabel("Name", { exact: true }).fill("Premium");
    await optionForm.getByLabel("Price", { exact: true }).fill("29.999");
    await optionForm.getByRole("button", { name: "Add option" }).click();
    const priceError = page.locator("#option-price-error");
    await priceError.waitFor({ timeout: 10_000 });
    expect(await priceError.textContent()).toBe("The price field must have 0-2 decimal places.");
    await optionForm.getByLabel("Price", { exact: true }).fill("29.50");
    expect(await priceError.count()).toBe(0);
    await optionForm.getByRole("button", { name: "Add option" }).click();
    const option = page.getByRole("listitem").filter({ hasText: "Premium" });
    await option.getByText("29.50").waitFor({ timeout: 10_000 });
    await option.getByLabel("New benefit of Premium").fill("Source code");
    await option.getByRole("button", { name: "Add benefit to Premium" }).click();
    await page
      .getByRole("list", { name: "Benefits of Premium" })
      .getByText("Source code")
      .waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);

    // Details: a taken slug is refused beside Slug; a new name is saved and becomes the heading.
    const details = page.getByRole("form", { name: "Details" });
    const taken = await createProduct(depot.ctx, admin, { name: "Taken" });
    await details.getByLabel("Slug", { exact: true }).fill(taken.slug);
    await details.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#settings-slug-error").getByText("The slug has already been taken.").waitFor({
      timeout: 10_000,
    });
    await details.getByLabel("Slug", { exact: true }).fill("veras-plugin");
    expect(await page.locator("#settings-slug-error").count()).toBe(0);
    await details.getByLabel("Name", { exact: true }).fill("Vera's Plugin Pro");
    await details.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("heading", { name: "Settings of Vera's Plugin Pro", level: 1 }).waitFor({
      timeout: 10_000,
    });
    await details.getByText("Saved.").waitFor();

    // Deleting another product: a confirm, then the products list; the product is soft-deleted.
    const doomed = await createProduct(depot.ctx, admin, { name: "Doomed" });
    await page.goto(`${depot.base}/dashboard/products/${doomed.id}/settings`, { waitUntil: "networkidle" });
    await page.getByRole("button", { name: "Delete product" }).click();
    await waitForPath(page, /^\/dashboard\/products$/);
    expect(dialogs).toEqual([expect.stringContaining(`Delete “${isolated("Doomed")}”?`)]);
    dialogs.length = 0;
    const deleted = await readJson(
      await fetch(`${depot.base}/api/products/${doomed.id}`, { headers: { cookie: await cookieOf(w) } }),
    );
    expect(deleted.data.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Purchases: an unknown customer is refused beside the e-mail; then the customer's purchase.
    // (By address: the products list, where the delete went, is another page's, with or without a nav.)
    await page.goto(`${depot.base}/dashboard/purchases`, { waitUntil: "networkidle" });
    await page.getByRole("heading", { name: "Purchases", level: 1 }).waitFor({ timeout: 10_000 });
    await page.getByText("No purchases yet.").waitFor({ timeout: 10_000 });
    const purchaseForm = page.getByRole("form", { name: "New purchase" });
    await purchaseForm.getByLabel("Customer e-mail", { exact: true }).fill("nobody@example.com");
    await purchaseForm.getByLabel("Product", { exact: true }).selectOption({ label: "Vera's Plugin Pro" });
    const optionSelect = purchaseForm.getByLabel("Option", { exact: true });
    await optionSelect
      .locator("option", { hasText: "Premium" })
      .waitFor({ state: "attached", timeout: 10_000 });
    await optionSelect.selectOption({ label: "Premium" });
    // The option's price is filled in.
    expect(await purchaseForm.getByLabel("Price (USD)", { exact: true }).inputValue()).toBe("29.50");
    await purchaseForm.getByRole("button", { name: "Record purchase" }).click();
    await page.locator("#purchase-customer-error").getByText("No user has this e-mail address.").waitFor({
      timeout: 10_000,
    });
    await purchaseForm.getByLabel("Customer e-mail", { exact: true }).fill(customer.email);
    expect(await page.locator("#purchase-customer-error").count()).toBe(0);
    await purchaseForm.getByRole("button", { name: "Record purchase" }).click();
    const purchase = page.getByRole("listitem").filter({ hasText: "Vera's Plugin Pro · Premium" });
    await purchase.waitFor({ timeout: 10_000 });
    const purchaseText = (await purchase.textContent()) ?? "";
    expect(purchaseText).toContain(`Bought by Cleo Customer (${customer.email})`);
    expect(purchaseText).toContain("$29.50");
    expect(await purchase.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await fitsWidth(page)).toBe(true);

    // API keys: a new key, shown once, works against the license API until it is revoked.
    await followNav(nav, "API keys");
    await page.getByRole("heading", { name: "API keys", level: 1 }).waitFor({ timeout: 10_000 });
    await page.getByText("No API keys yet.").waitFor({ timeout: 10_000 });
    await page.getByRole("button", { name: "New API key" }).click();
    const keyForm = page.getByRole("form", { name: "New API key" });
    await keyForm.getByLabel("Name", { exact: true }).fill("Storefront");
    await keyForm.getByRole("button", { name: "Create API key" }).click();
    const keyField = page.getByLabel("Your new API key");
    await keyField.waitFor({ timeout: 10_000 });
    const key = await keyField.inputValue();
    expect(key).toMatch(/^dpk_/);
    const licenses = () => fetch(`${depot.base}/api/v1/licenses`, { headers: { "x-api-key": key } });
    const working = await licenses();
    expect(working.status).toBe(200);
    expect(await readJson(working)).toMatchObject({ licenses: [] });
    await page.getByRole("button", { name: "Done" }).click();
    const keyRow = page.getByRole("listitem").filter({ hasText: "Storefront" });
    await keyRow.waitFor({ timeout: 10_000 });
    expect(await keyRow.textContent()).toContain("All creators' licenses");
    expect(await page.content()).not.toContain(key);
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole("button", { name: "Revoke Storefront" }).click();
    await page.getByText("No API keys yet.").waitFor({ timeout: 10_000 });
    expect(dialogs).toEqual([expect.stringContaining("Storefront")]);
    const refused = await licenses();
    expect(refused.status).toBe(401);
    expect(await readJson(refused)).toEqual({ message: "Invalid API key." });

    // Roles: a support role with two permissions, then Cleo gets it; the admin cannot demote themself,
    // being the only admin, and is told why beside the select.
    await followNav(nav, "Roles");
    await page.getByRole("heading", { name: "Roles", level: 1 }).waitFor({ timeout: 10_000 });
    // New role opens its panel.
    expect(await page.getByRole("form", { name: "New role" }).count()).toBe(0);
    await page.getByRole("button", { name: "New role" }).click();
    const roleForm = page.getByRole("form", { name: "New role" });
    await roleForm.getByLabel("Name", { exact: true }).fill("support");
    await roleForm.getByRole("checkbox", { name: /users\.view/ }).check();
    await roleForm.getByRole("checkbox", { name: /purchases\.view/ }).check();
    await roleForm.getByRole("button", { name: "Create role" }).click();
    await page.getByRole("status").getByText("The role support is created.").waitFor({ timeout: 10_000 });
    const support = page.getByRole("row").filter({ hasText: "support" });
    await support.waitFor({ timeout: 10_000 });
    expect((await support.getByRole("cell").allTextContents()).slice(0, 3)).toEqual([
      "support",
      "users.view, purchases.view",
      "0",
    ]);
    expect(await fitsWidth(page)).toBe(true);

    await followNav(nav, "Users");
    const cleo = page.getByRole("listitem").filter({ hasText: customer.email });
    await cleo.waitFor({ timeout: 10_000 });
    await cleo.getByLabel("Change role", { exact: true }).selectOption("support");
    await cleo.getByRole("button", { name: "Save the role of Cleo Customer" }).click();
    await cleo.getByText("Role: support").waitFor({ timeout: 10_000 });
    // A fresh set-password link for Cleo, beside her in the list.
    await cleo.getByRole("button", { name: "Set-password link for Cleo Customer" }).click();
    const cleoLink = cleo.getByLabel(`Set-password link for ${customer.email}`);
    await cleoLink.waitFor({ timeout: 10_000 });
    expect(await cleoLink.inputValue()).toMatch(/^http:\/\/depot\.test\/set-password\?token=/);
    expect(await fitsWidth(page)).toBe(true);
    const me = page.getByRole("listitem").filter({ hasText: admin.email });
    await me.getByLabel("Change role", { exact: true }).selectOption("vendor");
    await me.getByRole("button", { name: `Save the role of ${admin.name}` }).click();
    await page.locator(`#user-${admin.id}-role-error`).getByText("depot needs at least one admin").waitFor({
      timeout: 10_000,
    });
    expect(await me.textContent()).toContain("Role: admin");
    expectClean(w);

    // The vendor signs in with the password they set: no admin links, and the Users page refuses them.
    await signInAs(vp, depot.base, vendorEmail, VENDOR_PASSWORD);
    const vendorNav = vp.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    expect(await vendorNav.getByRole("link", { includeHidden: true }).allTextContents()).toEqual([
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
    // An admin page is no page for them: "Page not found", as an unknown path.
    await vp.goto(`${depot.base}/dashboard/users`, { waitUntil: "networkidle" });
    await vp.getByRole("heading", { name: "Page not found", level: 1 }).waitFor({ timeout: 10_000 });
    expect(await vp.getByRole("form", { name: "New user" }).count()).toBe(0);
    expect(await fitsWidth(vp)).toBe(true);
    // Their Purchases show those of their product.
    await followNav(vendorNav, "Purchases");
    await vp
      .getByRole("listitem")
      .filter({ hasText: "Vera's Plugin Pro · Premium" })
      .waitFor({ timeout: 10_000 });
    expect(await vp.getByRole("form", { name: "New purchase" }).count()).toBe(0);
    expectClean(vendorPage);
  } finally {
    await w.context.close();
    await vendorPage?.context.close();
  }
}, 90_000);
