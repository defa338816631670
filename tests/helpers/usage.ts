// A depot with 90 days of usage for the dashboard's overview (tests/browser/overview.browser.ts,
// scripts/screenshots.ts): an admin, a vendor with two products and three versions each (the newest of
// one rolled out to a quarter of its clients, with a step to come), a customer holding a license with
// a machine, and 90 days of the rows the stats API reads (src/features/demo/usage.ts, as demo:seed).
import type { AppContext } from "../../src/context.ts";
import { seedUsage } from "../../src/features/demo/usage.ts";
import { bearer, json, readJson } from "./app.ts";
import { apiKeyFor, createProduct, tokenFor } from "./factories.ts";
import { publishedVersion } from "./publish.ts";
import { userWithPassword } from "./sessions.ts";

export const USAGE_PASSWORD = "correct horse battery";

export interface UsageWorld {
  admin: { email: string };
  vendor: { email: string };
  customer: { email: string };
  products: { id: number; name: string; versions: { id: string; name: string }[] }[];
  vendorToken: string;
  adminToken: string;
  customerToken: string;
}

/** Everything above, through the API where it can be (versions, the rollout, the license, a machine). */
export async function usageWorld(
  ctx: Pick<AppContext, "db" | "config">,
  base: string,
  names: [string, string] = ["Atlas Editor", "Beacon Sync"],
): Promise<UsageWorld> {
  const suffix = crypto.randomUUID().slice(0, 6);
  const admin = await userWithPassword(ctx, USAGE_PASSWORD, {
    role: "admin",
    name: "Ada Admin",
    email: `ada-${suffix}@example.com`,
  });
  const vendor = await userWithPassword(ctx, USAGE_PASSWORD, {
    role: "vendor",
    name: "Vera Vendor",
    email: `vera-${suffix}@example.com`,
  });
  const customer = await userWithPassword(ctx, USAGE_PASSWORD, {
    name: "Carla Customer",
    email: `carla-${suffix}@example.com`,
  });
  const vendorToken = await tokenFor(ctx, vendor);
  const products: UsageWorld["products"] = [];
  for (const name of names) {
    const product = await createProduct(ctx, vendor, { name });
    const versions = [];
    for (const version of ["1.0.0", "1.1.0", "1.2.0"]) {
      const published = await publishedVersion(base, vendorToken, product.id, {
        name: version,
        bytes: `${name} ${version}`,
        fileName: `${name.split(" ")[0]}-${version}.zip`,
      });
      versions.push({ id: String(published.id), name: version });
    }
    products.push({ id: product.id, name, versions });
  }
  // The first product's 1.2.0 goes to a quarter of its clients, half of them next week.
  const [first] = products;
  const rolled = first?.versions[2];
  if (!first || !rolled) throw new Error("no version to roll out");
  const patched = await fetch(
    `${base}/api/products/${first.id}/versions/${rolled.id}`,
    json(
      {
        rollout_percentage: 25,
        rollout_schedule: [{ at: new Date(Date.now() + 7 * 86_400_000).toISOString(), percentage: 50 }],
      },
      { method: "PATCH", token: vendorToken },
    ),
  );
  if (patched.status !== 200) throw new Error(`rollout answered ${patched.status}: ${await patched.text()}`);

  // The customer's license (through the license API, as a store would), with three seats and one used.
  const apiKey = await apiKeyFor(ctx, null);
  const created = await fetch(`${base}/api/v1/licenses`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey.key },
    body: JSON.stringify({
      ownerId: String(customer.id),
      creatorId: String(vendor.id),
      productId: String(first.id),
      maxMachines: 3,
    }),
  });
  if (created.status !== 201) throw new Error(`license answered ${created.status}: ${await created.text()}`);
  const license = (await readJson(created)) as { key: string };
  const activated = await fetch(`${base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key: license.key, fingerprint: `laptop-${suffix}`, name: "Carla's laptop" }),
  });
  if (activated.status >= 300)
    throw new Error(`activate answered ${activated.status}: ${await activated.text()}`);

  await seedUsage(
    ctx,
    products.map((product, index) => ({
      id: product.id,
      name: product.name,
      versions: ["1.0.0", "1.1.0", "1.2.0"],
      scale: index === 0 ? 1 : 0.45,
      clients: index === 0 ? 60 : 24,
      // The first product's 1.2.0 is the rollout: some clients take it, two go back.
      rollout: index === 0,
    })),
  );
  return {
    admin,
    vendor,
    customer,
    products,
    vendorToken,
    adminToken: await tokenFor(ctx, admin),
    customerToken: await tokenFor(ctx, customer),
  };
}

/** The stats API's answer for a caller (a token). */
export async function statsOf(base: string, token: string, path: string) {
  const response = await fetch(`${base}${path}`, { headers: bearer(token) });
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return readJson(response);
}
