// The Stripe page in a real browser at a phone's width, against the real API: an admin opens it from
// the navigation, sees the webhook's address, maps a price (a product that does not exist first: the
// 422 beside its field; then another product's license policy: the 422 beside the policy's field),
// sees an event sent to the webhook with its outcome, and removes the price.
// A vendor has no link to it. The harness is tests/helpers/browser.ts.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { licensePolicies, licenses } from "../../src/db/schema/index.ts";
import { readJson } from "../helpers/app.ts";
import {
  cookieOf,
  fitsWidth,
  followNav,
  listeningDepot,
  offOrigin,
  openPage,
  signInAs,
} from "../helpers/browser.ts";
import { createProduct, createUser } from "../helpers/factories.ts";
import { userWithPassword } from "../helpers/sessions.ts";

const SECRET = "whsec_browser_test";
const PASSWORD = "correct horse battery";
const depot = listeningDepot({ env: { STRIPE_WEBHOOK_SECRET: SECRET } });

async function sendEvent(priceId: string) {
  const payload = JSON.stringify({
    id: `evt_browser_${crypto.randomUUID().slice(0, 8)}`,
    object: "event",
    type: "checkout.session.completed",
    data: {
      object: {
        id: "cs_browser_1",
        payment_status: "paid",
        customer_details: { email: "buyer@example.com", name: "Buyer" },
        line_items: { data: [{ quantity: 1, amount_total: 4900, currency: "usd", price: { id: priceId } }] },
      },
    },
  });
  const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET });
  const response = await fetch(`${depot.base}/api/integrations/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: payload,
  });
  expect(response.status).toBe(200);
}

test("an admin maps a price, sees the events with their outcomes, and removes the price", async () => {
  const admin = await userWithPassword(depot.ctx, PASSWORD, { role: "admin" });
  const product = await createProduct(depot.ctx, await createUser(depot.ctx, { role: "vendor" }));
  const other = await createProduct(depot.ctx, await createUser(depot.ctx, { role: "vendor" }));
  const [policy, foreign] = await depot.ctx.db
    .insert(licensePolicies)
    .values([
      { productId: product.id, name: "Desktop", maxMachines: 3 },
      { productId: other.id, name: "Elsewhere" },
    ])
    .returning();
  const w = await openPage(depot.origin);
  try {
    await signInAs(w.page, depot.base, admin.email, PASSWORD);
    await followNav(w.page.getByRole("navigation", { name: "Dashboard", includeHidden: true }), "Stripe");
    await w.page.waitForURL((url) => url.pathname === "/dashboard/stripe", { timeout: 10_000 });
    const webhook = w.page.getByLabel("Endpoint to add in Stripe");
    await webhook.waitFor({ timeout: 10_000 });
    expect(await webhook.inputValue()).toBe("http://depot.test/api/integrations/stripe/webhook");
    await w.page.getByText("STRIPE_WEBHOOK_SECRET is set").waitFor();
    await w.page.getByText("No price is mapped yet").waitFor();
    expect(await fitsWidth(w.page)).toBe(true);

    // A product that does not exist: the API's 422 is shown beside the product field.
    await w.page.getByLabel("Stripe price id").fill("price_browser");
    await w.page.getByLabel("Product id").fill("999999");
    await w.page.getByRole("button", { name: "Save price" }).click();
    const productField = w.page.getByLabel("Product id");
    await w.page.locator('#stripe-product-id[aria-invalid="true"]').waitFor({ timeout: 10_000 });
    expect(await productField.getAttribute("aria-invalid")).toBe("true");

    // Another product's policy: refused beside the policy's field.
    await productField.fill(String(product.id));
    const policyField = w.page.getByLabel("License policy id (optional)");
    await policyField.fill(String(foreign?.id));
    await w.page.getByRole("button", { name: "Save price" }).click();
    await w.page.locator('#stripe-policy-id[aria-invalid="true"]').waitFor({ timeout: 10_000 });
    await w.page.getByText("The policy is not one of the product's license policies.").waitFor();

    await policyField.fill(String(policy?.id));
    await w.page.getByRole("button", { name: "Save price" }).click();
    await w.page.getByRole("button", { name: "Remove price_browser" }).waitFor({ timeout: 10_000 });
    await w.page.getByText(`${product.name} · policy Desktop`).waitFor();
    expect(await w.page.getByLabel("Stripe price id").inputValue()).toBe("");

    // A sale of the mapped price and one of a price nobody mapped: both listed with their outcomes.
    await sendEvent("price_browser");
    await sendEvent("price_nobody");
    await w.page.getByRole("button", { name: "Refresh events" }).click();
    await w.page.getByText("No product is set for Stripe price price_nobody.").waitFor({ timeout: 10_000 });
    await w.page.getByText("checkout.session.completed · processed").waitFor();
    await w.page.getByText("checkout.session.completed · failed").waitFor();
    const [sold] = await depot.ctx.db
      .select()
      .from(licenses)
      .where(eq(licenses.policyId, policy?.id ?? 0));
    expect(sold?.maxMachines).toBe(3);

    await w.page.getByRole("button", { name: "Remove price_browser" }).click();
    await w.page.getByText("No price is mapped yet").waitFor({ timeout: 10_000 });
    const settings = await fetch(`${depot.base}/api/integrations/stripe`, {
      headers: { cookie: await cookieOf(w) },
    });
    expect(settings.status).toBe(200);
    expect((await readJson(settings)).data.prices).toEqual([]);
    expect(offOrigin(w)).toEqual([]);
    expect(w.pageErrors).toEqual([]);
  } finally {
    await w.context.close();
  }
}, 90_000);

test("a vendor has no Stripe link", async () => {
  const vendor = await userWithPassword(depot.ctx, PASSWORD, { role: "vendor" });
  const w = await openPage(depot.origin);
  try {
    await signInAs(w.page, depot.base, vendor.email, PASSWORD);
    const nav = w.page.getByRole("navigation", { name: "Dashboard", includeHidden: true });
    await nav.getByRole("link", { name: "Products", includeHidden: true }).waitFor({ state: "attached" });
    expect(await nav.getByRole("link", { name: "Stripe", includeHidden: true }).count()).toBe(0);
  } finally {
    await w.context.close();
  }
}, 60_000);
