// A vendor makes a license policy on a product's licenses page and a license from it, in a real
// browser against the real API: the policy is listed, the New license form offers it, and the new
// license has the policy's numbers.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { licenses } from "../../src/db/schema/index.ts";
import { listeningDepot, openPage, signInAs } from "../helpers/browser.ts";
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
