// GET /api/products/{product}/access: what the caller may do with a product, so the dashboard offers
// only that. Each answer must be what the action's own route then does: `manage` is whether the
// product's licenses answer 200 (not 403), `publish` whether publishing gets past who-may (to its 422
// for an empty body) rather than a 403 or a deleted product's 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createRole, createUser, tokenFor } from "./helpers/factories.ts";

let t: TestApp;
const tokens: Record<string, string> = {};
const products: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestApp();
  const admin = await createUser(t.ctx, { role: "admin" });
  const seller = await createUser(t.ctx, { role: "vendor" });
  const coVendor = await createUser(t.ctx, { role: "vendor" });
  const otherVendor = await createUser(t.ctx, { role: "vendor" });
  const customer = await createUser(t.ctx);
  const manager = await createUser(t.ctx, { role: (await createRole(t.ctx, ["products.manage"])).name });
  const publishingManager = await createUser(t.ctx, {
    role: (await createRole(t.ctx, ["products.manage", "versions.publish"])).name,
  });
  Object.assign(tokens, {
    admin: await tokenFor(t.ctx, admin),
    seller: await tokenFor(t.ctx, seller),
    // A CI job's token: it publishes, and may not touch licenses.
    sellerCi: await tokenFor(t.ctx, seller, ["versions.publish"]),
    coVendor: await tokenFor(t.ctx, coVendor),
    otherVendor: await tokenFor(t.ctx, otherVendor),
    customer: await tokenFor(t.ctx, customer),
    manager: await tokenFor(t.ctx, manager),
    publishingManager: await tokenFor(t.ctx, publishingManager),
  });
  const listed = await createProduct(t.ctx, seller, { name: "Listed", vendor_id: coVendor.id });
  const hidden = await createProduct(t.ctx, seller, { name: "Hidden", hidden: true });
  const deleted = await createProduct(t.ctx, seller, { name: "Deleted" });
  const gone = await t.request(`/api/admin/products/${deleted.id}`, {
    method: "DELETE",
    headers: bearer(tokens.admin ?? ""),
  });
  expect(gone.status).toBe(204);
  Object.assign(products, { listed: listed.id, hidden: hidden.id, deleted: deleted.id });
});
afterAll(() => t.close());

const access = (product: string, who: string) =>
  t.request(`/api/products/${products[product]}/access`, { headers: bearer(tokens[who] ?? "") });

describe("GET /api/products/{product}/access", () => {
  test.each([
    // who, product, manage, publish
    ["seller", "listed", true, true],
    ["coVendor", "listed", true, true],
    ["sellerCi", "listed", false, true],
    ["admin", "listed", true, true],
    ["manager", "listed", true, false],
    // products.manage sees every product; publishing is still for its owners (and admins).
    ["publishingManager", "listed", true, false],
    ["otherVendor", "listed", false, false],
    ["customer", "listed", false, false],
    ["seller", "hidden", true, true],
    // A deleted product takes no new versions.
    ["seller", "deleted", true, false],
    ["admin", "deleted", true, false],
  ])("%s on the %s product: manage %p, publish %p", async (who, product, manage, publish) => {
    const response = await access(product, who);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ data: { manage, publish } });

    // What the routes themselves then answer.
    const licenses = await t.request(`/api/products/${products[product]}/licenses`, {
      headers: bearer(tokens[who] ?? ""),
    });
    expect(licenses.status).toBe(manage ? 200 : 403);
    const published = await t.request(
      `/api/products/${products[product]}/versions`,
      json({}, { token: tokens[who] }),
    );
    if (publish) expect(published.status).toBe(422);
    else expect([403, 404]).toContain(published.status);
  });

  test("a product the caller may not see, or none at all, is the 404 the product itself answers", async () => {
    for (const who of ["otherVendor", "customer"]) {
      const response = await access("hidden", who);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Product not found." });
    }
    const unknown = await t.request("/api/products/99999999/access", {
      headers: bearer(tokens.seller ?? ""),
    });
    expect(unknown.status).toBe(404);
    expect(await readJson(unknown)).toEqual({ message: "Product not found." });
    const malformed = await t.request("/api/products/1e3/access", { headers: bearer(tokens.seller ?? "") });
    expect(malformed.status).toBe(404);
    expect(await readJson(malformed)).toEqual({ message: "Product not found." });
  });
});
