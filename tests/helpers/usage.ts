// A depot with 90 days of usage for the dashboard's overview (tests/browser/overview.browser.ts,
// scripts/screenshots.ts): an admin, a vendor with two products and three versions each (the newest of
// one rolled out to a quarter of its clients, with a step to come), a customer holding a license with
// a machine, and the daily rows the stats API reads, as the batch writers would have left them.
import type { AppContext } from "../../src/context.ts";
import { updateChecks, updateClients, usageDays } from "../../src/db/schema/index.ts";
import { bearer, json, readJson } from "./app.ts";
import { apiKeyFor, createProduct, tokenFor } from "./factories.ts";
import { publishedVersion } from "./publish.ts";
import { userWithPassword } from "./sessions.ts";

export const USAGE_PASSWORD = "correct horse battery";
export const USAGE_DAYS = 90;

const dayAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/** A small deterministic generator: the same numbers every run (mulberry32). */
function numbers(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

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

  await seedUsageRows(ctx, products);
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

/**
 * USAGE_DAYS of rows per product: validations by code, activations, alive machines, downloads by
 * version, update polls, and 60 update clients moving from 1.0.0 to 1.1.0 and, lately, 1.2.0 (two of
 * the first product's going back to 1.1.0 the day after).
 */
async function seedUsageRows(ctx: Pick<AppContext, "db">, products: UsageWorld["products"]) {
  const usage: (typeof usageDays.$inferInsert)[] = [];
  const checks: (typeof updateChecks.$inferInsert)[] = [];
  const clients: (typeof updateClients.$inferInsert)[] = [];
  products.forEach((product, index) => {
    const random = numbers(17 + index);
    const scale = index === 0 ? 1 : 0.45;
    for (let ago = USAGE_DAYS - 1; ago >= 0; ago--) {
      const day = dayAgo(ago);
      const growth = (USAGE_DAYS - ago) / USAGE_DAYS;
      const row = (series: string, count: number, fields: Partial<typeof usageDays.$inferInsert> = {}) => {
        if (count > 0) usage.push({ day, productId: product.id, series, count, ...fields });
      };
      row("validations", Math.round((120 + 180 * growth + random(40)) * scale), { detail: "VALID" });
      row("validations", random(9), { detail: "EXPIRED" });
      row("validations", random(5), { detail: "NOT_FOUND" });
      row("validations", random(3), { detail: "MACHINE_LIMIT" });
      row("activations", random(4));
      row("machines", Math.round((30 + 50 * growth + random(6)) * scale));
      for (const version of product.versions) {
        const age = version.name === "1.0.0" ? 0 : version.name === "1.1.0" ? 45 : 80;
        if (USAGE_DAYS - ago > age) {
          row("downloads", random(Math.round(12 * scale) + 2), {
            version: version.name,
            detail: `${product.name.split(" ")[0]}-${version.name}.zip`,
          });
        }
      }
      checks.push({
        day,
        productId: product.id,
        feed: "electron",
        channel: "latest",
        platform: "windows",
        currentVersion: "",
        checks: Math.round((200 + random(80)) * scale),
      });
    }
    // Clients: each polls every few days; 1.1.0 from day 45, 1.2.0 (the rollout) in the last 10 days.
    const count = index === 0 ? 60 : 24;
    for (let client = 0; client < count; client++) {
      const moves = 45 + random(30);
      const takesNewest = index === 0 && client % 4 === 0;
      for (let ago = USAGE_DAYS - 1; ago >= 0; ago -= 1 + random(4)) {
        const lived = USAGE_DAYS - ago;
        let version = lived >= moves ? "1.1.0" : "1.0.0";
        if (takesNewest && ago < 10) version = "1.2.0";
        // Two of those that took it went back the next time they polled.
        if (takesNewest && client < 8 && ago < 4) version = "1.1.0";
        clients.push({
          day: dayAgo(ago),
          productId: product.id,
          client: `c${index}-${client}`,
          currentVersion: version,
        });
      }
    }
  });
  await ctx.db.insert(usageDays).values(usage);
  await ctx.db.insert(updateChecks).values(checks);
  for (let start = 0; start < clients.length; start += 1000) {
    await ctx.db
      .insert(updateClients)
      .values(clients.slice(start, start + 1000))
      .onConflictDoNothing();
  }
}

/** The stats API's answer for a caller (a token). */
export async function statsOf(base: string, token: string, path: string) {
  const response = await fetch(`${base}${path}`, { headers: bearer(token) });
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return readJson(response);
}
