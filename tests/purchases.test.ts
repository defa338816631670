import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { orders, purchases } from "../src/db/schema/index.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  createOption,
  createProduct,
  createPurchase,
  createRole,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";

let t: TestApp;
let adminToken: string;
let seller: { id: number };
let sellerToken: string;
let alice: { id: number };
let aliceToken: string;
let bob: { id: number };
let viewerToken: string;
let plugin: { id: number };
let theme: { id: number };
/** Ids of every purchase made here, oldest first. */
const made: number[] = [];

beforeAll(async () => {
  t = await startTestApp({ env: { APP_URL: "https://depot.example.com/store" } });
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  seller = await createUser(t.ctx, { role: "vendor" });
  sellerToken = await tokenFor(t.ctx, seller);
  alice = await createUser(t.ctx);
  aliceToken = await tokenFor(t.ctx, alice);
  bob = await createUser(t.ctx);
  viewerToken = await tokenFor(
    t.ctx,
    await createUser(t.ctx, { role: (await createRole(t.ctx, ["purchases.view"])).name }),
  );
  plugin = await createProduct(t.ctx, seller);
  theme = await createProduct(t.ctx, await createUser(t.ctx, { role: "vendor" }));
  // alice: 2 of the seller's plugin, 1 theme; bob: 1 plugin, 1 theme (5 in all).
  for (const [buyer, product] of [
    [alice, plugin],
    [bob, theme],
    [alice, theme],
    [bob, plugin],
    [alice, plugin],
  ] as const) {
    made.push((await createPurchase(t.ctx, buyer, product)).id);
  }
});
afterAll(() => t.close());

const list = (query: string, token: string) =>
  t.request(`/api/purchases${query}`, { headers: bearer(token) });
const idsOf = (body: { data: { id: number }[] }) => body.data.map((p) => p.id);
const newestFirst = (ids: number[]) => ids.toSorted((a, b) => b - a);

describe("GET /api/purchases: who sees what", () => {
  test("purchases.view (and admin) see all, newest first", async () => {
    for (const token of [viewerToken, adminToken]) {
      const body = await readJson(await list("", token));
      expect(idsOf(body)).toEqual(newestFirst(made));
    }
  });

  test("a customer sees only their own purchases", async () => {
    const body = await readJson(await list("", aliceToken));
    expect(idsOf(body)).toEqual(newestFirst([made[0], made[2], made[4]] as number[]));
  });

  test("a seller sees the purchases of their products, not of others' products", async () => {
    const body = await readJson(await list("", sellerToken));
    expect(idsOf(body)).toEqual(newestFirst([made[0], made[3], made[4]] as number[]));
  });

  test("filters narrow what one may see, and never widen it", async () => {
    const aliceOfPlugin = await readJson(
      await list(`?user_id=${alice.id}&product_id=${plugin.id}`, adminToken),
    );
    expect(idsOf(aliceOfPlugin)).toEqual(newestFirst([made[0], made[4]] as number[]));
    // alice asking for bob's purchases gets none of them.
    const bobs = await readJson(await list(`?user_id=${bob.id}`, aliceToken));
    expect(bobs.data).toEqual([]);
    expect(bobs.meta).toMatchObject({ from: null, to: null, current_page: 1 });
  });
});

describe("GET /api/purchases: the page", () => {
  test("each purchase has the documented fields and types, and a formatted price", async () => {
    const eur = await createPurchase(t.ctx, bob, theme, {
      unit_price: 1299.5,
      currency: "EUR",
      original_unit_price: 1100,
      original_currency: "GBP",
      quantity: 2,
    });
    const body = await readJson(await list(`?user_id=${bob.id}&per_page=1`, adminToken));
    expect(body.data).toEqual([
      {
        id: eur.id,
        order_id: eur.orderId,
        product_id: theme.id,
        quantity: 2,
        created_at: eur.createdAt.toISOString(),
        updated_at: eur.updatedAt.toISOString(),
        unit_price: 1299.5,
        unit_price_currency_id: eur.unitPriceCurrencyId,
        original_currency_id: eur.originalCurrencyId,
        original_unit_price: 1100,
        currency_rate: 1.18136364,
        formatted_price: "€1,299.50",
      },
    ]);
    const usd = await readJson(await list(`?user_id=${alice.id}&per_page=1`, adminToken));
    expect(usd.data[0].formatted_price).toBe("$19.99");
    expect(usd.data[0].currency_rate).toBe(1);
  });

  test("links are absolute from APP_URL and keep the filters; meta counts the page", async () => {
    const first = await readJson(await list(`?user_id=${alice.id}&per_page=2`, adminToken));
    const base = "https://depot.example.com/store/api/purchases";
    expect(first.links).toEqual({
      first: `${base}?user_id=${alice.id}&per_page=2&page=1`,
      last: null,
      prev: null,
      next: `${base}?user_id=${alice.id}&per_page=2&page=2`,
    });
    expect(first.meta).toEqual({ current_page: 1, from: 1, path: base, per_page: 2, to: 2 });

    const next = new URL(first.links.next);
    const second = await readJson(await list(next.search, adminToken));
    expect(second.data).toHaveLength(1);
    expect(second.links.next).toBeNull();
    expect(second.links.prev).toBe(`${base}?user_id=${alice.id}&per_page=2&page=1`);
    expect(second.meta).toEqual({ current_page: 2, from: 3, path: base, per_page: 2, to: 3 });
    expect([...idsOf(first), ...idsOf(second)]).toEqual(newestFirst([made[0], made[2], made[4]] as number[]));
  });

  test("15 per page by default; empty parameters count as absent", async () => {
    const body = await readJson(await list("?page=&per_page=&user_id=&product_id=", adminToken));
    expect(body.meta).toMatchObject({ current_page: 1, per_page: 15 });
    expect(idsOf(body)).toEqual(idsOf(await readJson(await list("", adminToken))));
    expect(body.data.length).toBeGreaterThanOrEqual(made.length);
  });
});

describe("GET /api/purchases: bad input is a 422 with a Laravel body", () => {
  test.each([
    ["?page=0", { page: ["The page field must be an integer of at least 1."] }],
    ["?page=abc", { page: ["The page field must be an integer of at least 1."] }],
    ["?page=1.5", { page: ["The page field must be an integer of at least 1."] }],
    ["?per_page=1000", { per_page: ["The per page field must be an integer between 1 and 100."] }],
    ["?per_page=0", { per_page: ["The per page field must be an integer between 1 and 100."] }],
    ["?user_id=abc", { user_id: ["The user id field must be an integer."] }],
    ["?product_id=1e3", { product_id: ["The product id field must be an integer."] }],
    ["?user_id=99999999", { user_id: ["The selected user id is invalid."] }],
    ["?product_id=9007199254740993", { product_id: ["The product id field must be an integer."] }],
    [
      "?page=0&user_id=abc",
      {
        page: ["The page field must be an integer of at least 1."],
        user_id: ["The user id field must be an integer."],
      },
    ],
  ])("%s", async (query, errors) => {
    const response = await list(query, adminToken);
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors).toEqual(errors);
    expect(body.message).toStartWith(Object.values(errors)[0]?.[0] ?? "");
  });
});

describe("POST /api/admin/purchases", () => {
  test("records the purchase and its order; the response is a documented purchase", async () => {
    const option = await createOption(t.ctx, plugin, 49.99);
    const response = await t.request(
      "/api/admin/purchases",
      json(
        { user_id: bob.id, product_id: plugin.id, option_id: option.id, quantity: 3, unit_price: 49.99 },
        { token: adminToken },
      ),
    );
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toMatchObject({
      product_id: plugin.id,
      quantity: 3,
      unit_price: 49.99,
      original_unit_price: 49.99,
      currency_rate: 1,
      formatted_price: "$49.99",
    });
    const [order] = await t.ctx.db.select().from(orders).where(eq(orders.id, data.order_id));
    expect(order).toMatchObject({ userId: bob.id, total: "149.97" });
    const [row] = await t.ctx.db.select().from(purchases).where(eq(purchases.id, data.id));
    expect(row).toMatchObject({ userId: bob.id, optionId: option.id });
  });

  test("unknown references, an option of another product and an unknown currency → 422, nothing written", async () => {
    const otherOption = await createOption(t.ctx, theme);
    const before = (await t.ctx.db.select().from(orders)).length;
    const response = await t.request(
      "/api/admin/purchases",
      json(
        {
          user_id: 99999999,
          product_id: plugin.id,
          option_id: otherOption.id,
          unit_price: 5,
          currency: "XYZ",
        },
        { token: adminToken },
      ),
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      user_id: ["The selected user id is invalid."],
      option_id: ["The selected option id is invalid."],
      currency: ["The selected currency is invalid."],
    });
    expect((await t.ctx.db.select().from(orders)).length).toBe(before);
  });

  test("more than two decimals, or an original price without its currency → 422, not a silent rounding", async () => {
    const response = await t.request(
      "/api/admin/purchases",
      json(
        { user_id: bob.id, product_id: plugin.id, unit_price: 19.999, original_currency: "GBP" },
        { token: adminToken },
      ),
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      unit_price: ["The unit price field must have 0-2 decimal places."],
      original_unit_price: ["The original unit price field is required when original currency is present."],
    });
  });

  test("wrong types → 422 per field", async () => {
    const response = await t.request(
      "/api/admin/purchases",
      json(
        { user_id: true, product_id: plugin.id, unit_price: "10", quantity: 0, currency: "usd" },
        { token: adminToken },
      ),
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      user_id: ["The user id field must be an integer."],
      unit_price: ["The unit price field must be a number."],
      quantity: ["The quantity field must be at least 1."],
      currency: ["The currency field format is invalid."],
    });
  });
});
