import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { purchaseBenefits } from "../src/db/schema/index.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";

let t: TestApp;
let adminToken: string;
let owner: { id: number };

beforeAll(async () => {
  t = await startTestApp();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  owner = await createUser(t.ctx, { role: "vendor" });
});
afterAll(() => t.close());

const post = (path: string, body: unknown) => t.request(path, json(body, { token: adminToken }));

describe("POST /api/admin/roles", () => {
  test("a role with named permissions; its users get exactly those", async () => {
    const response = await post("/api/admin/roles", {
      name: "support",
      permissions: ["users.view", "purchases.view"],
    });
    expect(response.status).toBe(201);
    const { data: role } = await readJson(response);
    expect(role).toEqual({
      id: expect.any(Number),
      name: "support",
      permissions: ["users.view", "purchases.view"],
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const agent = await createUser(t.ctx, { role: "support" });
    const agentToken = await tokenFor(t.ctx, agent);
    const someone = await createUser(t.ctx);
    const seen = await t.request(`/api/users/${someone.id}`, { headers: bearer(agentToken) });
    expect(seen.status).toBe(200);
    expect((await readJson(seen)).data).toMatchObject({ id: someone.id, email: someone.email });
    // users.view is not an admin: the admin API stays closed.
    expect(
      (await t.request("/api/admin/roles", json({ name: "x", permissions: [] }, { token: agentToken })))
        .status,
    ).toBe(403);
  });

  test("a taken name, an unknown permission and a bad name → 422", async () => {
    const taken = await post("/api/admin/roles", { name: "admin", permissions: [] });
    expect(taken.status).toBe(422);
    expect((await readJson(taken)).errors).toEqual({ name: ["The name has already been taken."] });

    const bad = await post("/api/admin/roles", { name: "Has Spaces", permissions: ["users.view", "root"] });
    expect(bad.status).toBe(422);
    expect(Object.keys((await readJson(bad)).errors).sort()).toEqual(["name", "permissions.1"]);
  });
});

describe("PATCH and DELETE /api/admin/roles/{role}", () => {
  const change = (id: number | string, body: unknown) =>
    t.request(`/api/admin/roles/${id}`, json(body, { token: adminToken, method: "PATCH" }));
  const remove = (id: number | string) =>
    t.request(`/api/admin/roles/${id}`, { method: "DELETE", headers: bearer(adminToken) });
  const roleNamed = async (name: string) => {
    const { data } = await readJson(await t.request("/api/admin/roles", { headers: bearer(adminToken) }));
    return (data as { id: number; name: string; permissions: string[] }[]).find((role) => role.name === name);
  };

  test("a role is renamed and given other permissions; its users have them at once", async () => {
    const created = await readJson(await post("/api/admin/roles", { name: "helpdesk", permissions: [] }));
    const agentToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "helpdesk" }));
    const someone = await createUser(t.ctx);
    expect((await t.request(`/api/users/${someone.id}`, { headers: bearer(agentToken) })).status).toBe(403);

    const response = await change(created.data.id, { name: "help-desk", permissions: ["users.view"] });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data).toEqual({
      id: created.data.id,
      name: "help-desk",
      permissions: ["users.view"],
      created_at: created.data.created_at,
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await t.request(`/api/users/${someone.id}`, { headers: bearer(agentToken) })).status).toBe(200);
    // Only what is sent changes; its own name is no clash.
    const same = await change(created.data.id, { name: "help-desk" });
    expect((await readJson(same)).data.permissions).toEqual(["users.view"]);
  });

  test("a taken name or an unknown permission → 422; an unknown role → 404", async () => {
    const created = await readJson(await post("/api/admin/roles", { name: "billing", permissions: [] }));
    const taken = await change(created.data.id, { name: "vendor" });
    expect(taken.status).toBe(422);
    expect((await readJson(taken)).errors).toEqual({ name: ["The name has already been taken."] });
    const bad = await change(created.data.id, { permissions: ["root"], colour: "red" });
    expect(bad.status).toBe(422);
    expect(Object.keys((await readJson(bad)).errors).sort()).toEqual(["colour", "permissions.0"]);
    expect(await readJson(await change(999999, { name: "x" }))).toEqual({ message: "Role not found." });
    expect((await remove("abc")).status).toBe(404);
    expect((await roleNamed("billing"))?.permissions).toEqual([]);
  });

  test("the built-in roles are neither changed nor deleted (403)", async () => {
    for (const name of ["admin", "vendor", "customer"]) {
      const role = await roleNamed(name);
      const changed = await change(role?.id ?? 0, { permissions: [] });
      expect(changed.status).toBe(403);
      expect((await readJson(changed)).message).toBe(
        "The built-in roles admin, vendor and customer cannot be changed.",
      );
      expect((await remove(role?.id ?? 0)).status).toBe(403);
      expect((await roleNamed(name))?.permissions).toEqual(role?.permissions ?? ["never"]);
    }
  });

  test("a role is deleted once nobody has it (409 before)", async () => {
    const created = await readJson(await post("/api/admin/roles", { name: "interns", permissions: [] }));
    const intern = await createUser(t.ctx, { role: "interns" });
    const refused = await remove(created.data.id);
    expect(refused.status).toBe(409);
    expect(await readJson(refused)).toEqual({
      message: "1 user has this role: give them another role first.",
    });
    expect(await roleNamed("interns")).toBeDefined();

    const moved = await t.request(
      `/api/admin/users/${intern.id}`,
      json({ role: "customer" }, { token: adminToken, method: "PATCH" }),
    );
    expect(moved.status).toBe(200);
    const deleted = await remove(created.data.id);
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect(await roleNamed("interns")).toBeUndefined();
    expect((await remove(created.data.id)).status).toBe(404);
  });
});

describe("options and benefits", () => {
  test("POST …/options → 201 {id, product_id, name, price}", async () => {
    const product = await createProduct(t.ctx, owner);
    const response = await post(`/api/admin/products/${product.id}/options`, {
      name: "Premium",
      price: 39.99,
    });
    expect(response.status).toBe(201);
    expect((await readJson(response)).data).toEqual({
      id: expect.any(Number),
      product_id: product.id,
      name: "Premium",
      price: 39.99,
    });
  });

  test("POST …/benefits → 201 on one of the product's options", async () => {
    const product = await createProduct(t.ctx, owner);
    const option = await createOption(t.ctx, product);
    const response = await post(`/api/admin/products/${product.id}/benefits`, {
      option_id: option.id,
      name: "Source code access",
    });
    expect(response.status).toBe(201);
    expect((await readJson(response)).data).toEqual({
      id: expect.any(Number),
      product_id: product.id,
      option_id: option.id,
      name: "Source code access",
    });
  });

  test("a benefit on another product's option → 422, nothing written", async () => {
    const product = await createProduct(t.ctx, owner);
    const other = await createProduct(t.ctx, owner);
    const foreign = await createOption(t.ctx, other);
    const response = await post(`/api/admin/products/${product.id}/benefits`, {
      option_id: foreign.id,
      name: "x",
    });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The selected option id is invalid.",
      errors: { option_id: ["The selected option id is invalid."] },
    });
    const rows = await t.ctx.db
      .select()
      .from(purchaseBenefits)
      .where(eq(purchaseBenefits.productId, product.id));
    expect(rows).toEqual([]);
  });

  test.each([
    [{ name: "Gold" }, { price: ["The price field is required."] }],
    [{ name: "Gold", price: -1 }, { price: ["The price field must be at least 0."] }],
    [{ name: "Gold", price: "9.99" }, { price: ["The price field must be a number."] }],
    [{ name: "Gold", price: 9.999 }, { price: ["The price field must have 0-2 decimal places."] }],
    [
      { price: 1, colour: "red" },
      { name: ["The name field is required."], colour: ["The colour field is prohibited."] },
    ],
  ])("option %j → 422", async (body, errors) => {
    const product = await createProduct(t.ctx, owner);
    const response = await post(`/api/admin/products/${product.id}/options`, body);
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual(errors);
  });

  test("options of an unknown or deleted product → 404", async () => {
    const product = await createProduct(t.ctx, owner);
    await t.request(`/api/admin/products/${product.id}`, { method: "DELETE", headers: bearer(adminToken) });
    for (const id of [product.id, 99999999]) {
      const response = await post(`/api/admin/products/${id}/options`, { name: "Gold", price: 1 });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Product not found." });
    }
  });
});
