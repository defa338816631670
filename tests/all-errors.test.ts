import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createRole, createUser, tokenFor } from "./helpers/factories.ts";

/**
 * Like Laravel's validator, one 422 names every failing field: those the body's schema refuses and
 * those a later check refuses (an unknown id, a taken e-mail), even when the schema already failed.
 */

let t: TestApp;
let base: string;
let adminToken: string;
let vendorToken: string;
let apiKey: string;
let product: { id: number };
let taken: { id: number; email: string };
let takenRole: string;

beforeAll(async () => {
  t = await startTestApp({ jobs: "send", env: { WEBHOOK_ALLOW_PRIVATE: "false" } });
  base = t.listen();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  const vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
  apiKey = (await apiKeyFor(t.ctx)).key;
  taken = await createUser(t.ctx);
  takenRole = (await createRole(t.ctx, ["users.view"])).name;
});
afterAll(() => t.close());

async function expectAllErrors(response: Response, errors: Record<string, string[]>) {
  expect(response.status).toBe(422);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = await readJson(response);
  expect(body.errors).toEqual(errors);
  const count = Object.values(errors).flat().length;
  expect(body.message).toEndWith(`(and ${count - 1} more error${count === 2 ? "" : "s"})`);
}

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("one 422 with every failing field", () => {
  test("a license: a malformed owner beside missing fields", async () => {
    const response = await post("/api/v1/licenses", { ownerId: "abc" }, { "x-api-key": apiKey });
    await expectAllErrors(response, {
      ownerId: ["The selected ownerId is invalid."],
      creatorId: ["The creatorId field is required."],
      productId: ["The productId field is required."],
    });
  });

  test("a license PATCH: maxIps 0 beside an unknown product", async () => {
    const created = await post(
      "/api/v1/licenses",
      { ownerId: String(taken.id), creatorId: String(taken.id), productId: String(product.id) },
      { "x-api-key": apiKey },
    );
    const license = await readJson(created);
    const response = await fetch(`${base}/api/v1/licenses/${license.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ maxIps: 0, productId: "999999" }),
    });
    await expectAllErrors(response, {
      maxIps: ["The maxIps field must be at least 1."],
      productId: ["The selected productId is invalid."],
    });
  });

  test("a product: schema errors and unknown users together", async () => {
    const response = await post(
      "/api/admin/products",
      { name: "", user_id: 999999, vendor_id: 999998, slug: "not a slug" },
      bearer(adminToken),
    );
    await expectAllErrors(response, {
      name: ["The name field is required."],
      slug: ["The slug field format is invalid."],
      user_id: ["The selected user id is invalid."],
      vendor_id: ["The selected vendor id is invalid."],
    });
  });

  test("a purchase: a bad price beside unknown references", async () => {
    const response = await post(
      "/api/admin/purchases",
      { user_id: 999999, product_id: 999998, unit_price: "free", currency: "XXX" },
      bearer(adminToken),
    );
    await expectAllErrors(response, {
      unit_price: ["The unit price field must be a number."],
      user_id: ["The selected user id is invalid."],
      product_id: ["The selected product id is invalid."],
      currency: ["The selected currency is invalid."],
    });
  });

  test("a user: a missing name beside a taken e-mail and an unknown role", async () => {
    const response = await post(
      "/api/admin/users",
      { email: taken.email, role: "nobody" },
      bearer(adminToken),
    );
    await expectAllErrors(response, {
      name: ["The name field is required."],
      role: ["The selected role is invalid."],
      email: ["The email has already been taken."],
    });
  });

  test("an API key: a missing name beside an unknown creator", async () => {
    const response = await post("/api/admin/api-keys", { creator_id: 999999 }, bearer(adminToken));
    await expectAllErrors(response, {
      name: ["The name field is required."],
      creator_id: ["The selected creator id is invalid."],
    });
  });

  test("a role: bad permissions beside a taken name", async () => {
    const response = await post(
      "/api/admin/roles",
      { name: takenRole, permissions: "all" },
      bearer(adminToken),
    );
    await expectAllErrors(response, {
      permissions: ["The permissions field must be an array."],
      name: ["The name has already been taken."],
    });
  });

  test("an option: a missing name beside a price with three decimals", async () => {
    const response = await post(
      `/api/admin/products/${product.id}/options`,
      { price: 1.234 },
      bearer(adminToken),
    );
    await expectAllErrors(response, {
      name: ["The name field is required."],
      price: ["The price field must have 0-2 decimal places."],
    });
  });

  test("a webhook: bad events beside a URL with credentials", async () => {
    const response = await post(
      "/api/webhooks",
      { url: "https://user:secret@203.0.113.10/hook", events: "all" },
      bearer(vendorToken),
    );
    const body = await readJson(response);
    expect(response.status).toBe(422);
    expect(Object.keys(body.errors).sort()).toEqual(["events", "url"]);
    expect(body.errors.events).toEqual(["The events field must be an array."]);
  });

  test("a multipart publish: a missing title, an unknown benefit and no file", async () => {
    const form = new FormData();
    form.append("version_name", "1.0.0");
    form.append("changelog", "-");
    form.append("benefit_id", "999999");
    const response = await fetch(`${base}/api/products/${product.id}/versions`, {
      method: "POST",
      headers: bearer(vendorToken),
      body: form,
    });
    await expectAllErrors(response, {
      benefit_id: ["The selected benefit id is invalid."],
      title: ["The title field is required."],
      file: ["The file field is required."],
    });
  });
});
