// A vendor makes a license policy on a product's licenses page and a license from it, in a real
// browser against the real API: the policy is listed, the New license form offers it, and the new
// license has the policy's numbers.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { isolated } from "../../src/dashboard/app/bidi.ts";
import { licensePolicies, licenses } from "../../src/db/schema/index.ts";
import { insertLicense } from "../../src/features/licenses/service.ts";
import { cellUnder, listeningDepot, openPage, rowUnder, signInAs } from "../helpers/browser.ts";
import { createProduct, createPurchase, createUser } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const PASSWORD = "correct horse battery";
const depot = listeningDepot({});

test("a vendor makes a policy and a license from it", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Carla Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Desktop App" });
  await createPurchase(depot.ctx, customer, product);
  const { page } = await openPage(depot.origin);
  await signInAs(page, depot.base, vendor.email, PASSWORD);
  await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
  await page.getByText("No policies yet: every license has its own numbers.").waitFor({ timeout: 10_000 });

  // A bad number: the server's 422 beside its field, nothing made.
  await page.getByRole("button", { name: "New policy" }).click();
  await page.getByLabel("Policy name", { exact: true }).fill("Laptop");
  await page.getByLabel("Policy max IPs", { exact: true }).fill("0");
  await page.getByRole("button", { name: "Create policy" }).click();
  await page.locator("#policy-max-ips-error").waitFor({ timeout: 10_000 });
  expect(await page.locator("#policy-max-ips-error").textContent()).toBe(
    "The max ips field must be at least 1.",
  );

  await page.getByLabel("Policy max IPs", { exact: true }).fill("");
  await page.getByLabel("Policy max machines", { exact: true }).fill("3");
  await page.getByLabel("Policy lasts (days)", { exact: true }).fill("365");
  await page.getByRole("button", { name: "Create policy" }).click();
  const listed = page.getByRole("list", { name: "License policies" });
  await listed.getByText("Laptop").waitFor({ timeout: 10_000 });
  expect(await listed.textContent()).toContain("machines 3, IPs no limit, lasts 365 days, 0 licenses");

  // The New license form offers it; the license takes its numbers.
  await page.getByRole("button", { name: "New license" }).click();
  await page.getByLabel("Owner email", { exact: true }).fill(customer.email);
  await page.getByLabel("Policy", { exact: true }).selectOption({ label: "Laptop" });
  await page.getByRole("button", { name: "Create license" }).click();
  await page.getByLabel("New license key").waitFor({ timeout: 10_000 });
  const [made] = await depot.ctx.db.select().from(licenses).where(eq(licenses.productId, product.id));
  expect(made?.maxMachines).toBe(3);
  expect(made?.maxIps).toBeNull();
  expect(made?.policyId).not.toBeNull();
  const days = ((made?.expires?.getTime() ?? 0) - Date.now()) / 86_400_000;
  expect(Math.round(days)).toBe(365);
}, 60_000);

test("a vendor edits a policy (its license follows) and deletes it (the license keeps its numbers)", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Dora Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Editor App" });
  await createPurchase(depot.ctx, customer, product);
  const [policy] = await depot.ctx.db
    .insert(licensePolicies)
    .values({ productId: product.id, name: "Studio", maxMachines: 2, durationSeconds: 30 * 86_400 })
    .returning();
  if (!policy) throw new Error("no policy");
  const license = await insertLicense(depot.ctx, {
    userId: customer.id,
    creatorId: vendor.id,
    productId: product.id,
    policyId: policy.id,
  });
  const licenseRow = async () =>
    (await depot.ctx.db.select().from(licenses).where(eq(licenses.id, license.id)))[0];
  const { page } = await openPage(depot.origin);
  const dialogs: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.accept();
  });
  await signInAs(page, depot.base, vendor.email, PASSWORD);
  await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
  const listed = page.getByRole("list", { name: "License policies" });
  await listed.getByText("Studio").waitFor({ timeout: 10_000 });

  // The edit form opens with the policy's numbers.
  await page.getByRole("button", { name: "Edit policy Studio" }).click();
  const edit = page.getByRole("form", { name: "Edit policy Studio" });
  await edit.waitFor({ timeout: 10_000 });
  expect(await edit.getByLabel("Policy name", { exact: true }).inputValue()).toBe("Studio");
  expect(await edit.getByLabel("Policy max machines", { exact: true }).inputValue()).toBe("2");
  expect(await edit.getByLabel("Policy max IPs", { exact: true }).inputValue()).toBe("");
  expect(await edit.getByLabel("Policy lasts (days)", { exact: true }).inputValue()).toBe("30");

  // A bad number: the 422 beside its field, nothing changed.
  await edit.getByLabel("Policy max IPs", { exact: true }).fill("0");
  await edit.getByRole("button", { name: "Save policy" }).click();
  const ipsError = edit.locator(`#edit-policy-${policy.id}-max-ips-error`);
  await ipsError.waitFor({ timeout: 10_000 });
  expect(await ipsError.textContent()).toBe("The max ips field must be at least 1.");
  expect((await licenseRow())?.maxIps).toBeNull();

  // A good change: the list says it, and the license made from it follows.
  await edit.getByLabel("Policy max IPs", { exact: true }).fill("");
  await edit.getByLabel("Policy max machines", { exact: true }).fill("5");
  await edit.getByRole("button", { name: "Save policy" }).click();
  await edit.waitFor({ state: "detached", timeout: 10_000 });
  await listed.getByText("machines 5", { exact: false }).waitFor({ timeout: 10_000 });
  const [changed] = await depot.ctx.db
    .select()
    .from(licensePolicies)
    .where(eq(licensePolicies.id, policy.id));
  expect(changed).toMatchObject({ maxMachines: 5, maxIps: null, durationSeconds: 30 * 86_400 });
  expect((await licenseRow())?.maxMachines).toBe(5);

  // Deleting asks first, and says what happens to its license.
  await page.getByRole("button", { name: "Delete policy Studio" }).click();
  await page.getByText("No policies yet: every license has its own numbers.").waitFor({ timeout: 10_000 });
  expect(dialogs).toEqual([
    `Delete the policy ${isolated("Studio")}? Its 1 license keeps the settings it has now, as its own.`,
  ]);
  expect(await depot.ctx.db.select().from(licensePolicies).where(eq(licensePolicies.id, policy.id))).toEqual(
    [],
  );
  expect(await licenseRow()).toMatchObject({ policyId: null, maxMachines: 5 });
}, 60_000);

test("a vendor moves a license to another policy from its Settings, and off it", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const customer = await createUser(depot.ctx, { name: "Ezra Customer" });
  const product = await createProduct(depot.ctx, vendor, { name: "Mover App" });
  const policy = async (name: string, maxMachines: number, maxIps: number | null) => {
    const [row] = await depot.ctx.db
      .insert(licensePolicies)
      .values({ productId: product.id, name, maxMachines, maxIps })
      .returning();
    if (!row) throw new Error("no policy");
    return row;
  };
  const solo = await policy("Solo", 1, null);
  const team = await policy("Team", 10, 4);
  const license = await insertLicense(depot.ctx, {
    userId: customer.id,
    creatorId: vendor.id,
    productId: product.id,
    policyId: solo.id,
  });
  const licenseRow = async () =>
    (await depot.ctx.db.select().from(licenses).where(eq(licenses.id, license.id)))[0];
  const { page } = await openPage(depot.origin);
  await signInAs(page, depot.base, vendor.email, PASSWORD);
  await page.goto(`${depot.base}/dashboard/products/${product.id}/licenses`, { waitUntil: "networkidle" });
  const table = page.getByRole("table", { name: "Licenses" });
  const item = table.locator("tbody").getByRole("row").filter({ hasText: customer.email });
  await item.getByText("Solo", { exact: true }).waitFor({ timeout: 10_000 });
  const policyCell = await cellUnder(table, item, "Policy");
  expect(((await policyCell.textContent()) ?? "").trim()).toBe("Solo");

  // The settings open in the row right under the license's.
  const settings = rowUnder(item).getByRole("form", { name: `Settings of the license of ${customer.email}` });
  await item.getByRole("button", { name: "Settings" }).click();
  const choice = settings.getByLabel("Policy", { exact: true });
  expect(await choice.inputValue()).toBe(String(solo.id));
  await choice.selectOption({ label: "Team" });
  await settings.getByRole("button", { name: "Save settings" }).click();
  await settings.waitFor({ state: "detached", timeout: 10_000 });
  await policyCell.getByText("Team", { exact: true }).waitFor({ timeout: 10_000 });
  expect(await licenseRow()).toMatchObject({ policyId: team.id, maxMachines: 10, maxIps: 4 });
  expect(((await (await cellUnder(table, item, "Seats")).textContent()) ?? "").trim()).toBe("0/10");
  expect(((await (await cellUnder(table, item, "IPs")).textContent()) ?? "").trim()).toBe("0/4");

  // None: the license keeps Team's numbers as its own.
  await item.getByRole("button", { name: "Settings" }).click();
  await settings.getByLabel("Policy", { exact: true }).selectOption({ label: "None: its own settings" });
  await settings.getByRole("button", { name: "Save settings" }).click();
  await settings.waitFor({ state: "detached", timeout: 10_000 });
  await item.getByText("Team", { exact: true }).waitFor({ state: "detached", timeout: 10_000 });
  expect(((await policyCell.textContent()) ?? "").trim()).toBe("—");
  expect(await licenseRow()).toMatchObject({
    policyId: null,
    policyOverrides: [],
    maxMachines: 10,
    maxIps: 4,
  });
}, 60_000);
