import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { products } from "../src/db/schema/index.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createPurchase, createRole, createUser, tokenFor } from "./helpers/factories.ts";

let t: TestApp;
let adminToken: string;
let owner: { id: number };
let ownerToken: string;
let vendor: { id: number };
let vendorToken: string;
let strangerToken: string;
let managerToken: string;

beforeAll(async () => {
  t = await startTestApp({ env: { APP_URL: "https://shop.example.com" } });
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  owner = await createUser(t.ctx, { role: "vendor" });
  ownerToken = await tokenFor(t.ctx, owner);
  vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  strangerToken = await tokenFor(t.ctx, await createUser(t.ctx));
  const manager = await createUser(t.ctx, { role: (await createRole(t.ctx, ["products.manage"])).name });
  managerToken = await tokenFor(t.ctx, manager);
});
afterAll(() => t.close());

const read = (id: number | string, token: string) =>
  t.request(`/api/products/${id}`, { headers: bearer(token) });
const admin = (path: string, body: unknown, method = "POST") =>
  t.request(path, json(body, { method, token: adminToken }));

describe("GET /api/products/{product}", () => {
  test("every product field, with string flags, counts and discount", async () => {
    const created = await admin("/api/admin/products", {
      name: "Ultra Perms",
      user_id: owner.id,
      vendor_id: vendor.id,
      description: "Permissions, done right.",
      long_description: "# Ultra Perms\nLong text.",
      category_id: 4,
      featured: true,
      free: false,
      placeholder_injection: true,
      discount: 12.5,
      tags: ["permissions", "admin"],
      cover_image: "covers/ultra.png",
      gallery_images: ["gallery/1.png", "https://cdn.example.net/2.png"],
      youtube_video_url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    });
    expect(created.status).toBe(201);
    const { data: made } = await readJson(created);
    const buyer = await createUser(t.ctx);
    await createPurchase(t.ctx, buyer, { id: made.id });
    await createPurchase(t.ctx, buyer, { id: made.id });

    const response = await read(made.id, strangerToken);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: made.id,
      name: "Ultra Perms",
      description: "Permissions, done right.",
      slug: "ultra-perms",
      discount: "12.50",
      cover_image: "covers/ultra.png",
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.stringMatching(/Z$/),
      long_description: "# Ultra Perms\nLong text.",
      featured: "1",
      gallery_images: ["gallery/1.png", "https://cdn.example.net/2.png"],
      user_id: owner.id,
      category_id: 4,
      hidden: "0",
      addon_to: null,
      disabled: "0",
      free: "0",
      vendor_id: vendor.id,
      placeholder_injection: "1",
      tags: ["permissions", "admin"],
      deleted_at: null,
      youtube_video_url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      cover_image_url: "https://shop.example.com/storage/covers/ultra.png",
      gallery_image_urls: JSON.stringify([
        "https://shop.example.com/storage/gallery/1.png",
        "https://cdn.example.net/2.png",
      ]),
      impressions: "0",
      downloads: "0",
      purchases: "2",
      full_url: "https://shop.example.com/products/ultra-perms",
    });
    // The database keeps real types; only the edge speaks strings.
    const [row] = await t.ctx.db.select().from(products).where(eq(products.id, made.id));
    expect(row?.featured).toBe(true);
    expect(row?.discount).toBe("12.50");
    expect(row?.tags).toEqual(["permissions", "admin"]);
  });

  test.each([
    ["hidden", { hidden: true }],
    ["disabled", { disabled: true }],
  ])("a %s product: owner, vendor, products.manage and admin see it; others get 404", async (_, flags) => {
    const product = await createProduct(t.ctx, owner, { vendor_id: vendor.id, ...flags });
    for (const token of [ownerToken, vendorToken, managerToken, adminToken]) {
      expect((await read(product.id, token)).status).toBe(200);
    }
    const hiddenFromStranger = await read(product.id, strangerToken);
    expect(hiddenFromStranger.status).toBe(404);
    expect(await readJson(hiddenFromStranger)).toEqual({ message: "Product not found." });
  });

  test("a soft-deleted product shows deleted_at to its owner and is gone for everyone else", async () => {
    const product = await createProduct(t.ctx, owner);
    const deleted = await t.request(`/api/admin/products/${product.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(deleted.status).toBe(204);
    const seen = await readJson(await read(product.id, ownerToken));
    expect(seen.data.deleted_at).toMatch(/Z$/);
    expect((await read(product.id, strangerToken)).status).toBe(404);
    // Deleting twice, or changing a deleted product, finds nothing.
    const again = await t.request(`/api/admin/products/${product.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(again.status).toBe(404);
    expect((await admin(`/api/admin/products/${product.id}`, { name: "x" }, "PATCH")).status).toBe(404);
  });

  test.each(["abc", "0", "-1", "1.5", "1e3", "9007199254740993", "99999999"])(
    "product id %p names nothing → 404",
    async (id) => {
      const response = await read(id, adminToken);
      expect(response.status).toBe(404);
      expect((await readJson(response)).message).toMatch(/not found\.$/);
    },
  );
});

describe("POST /api/admin/products", () => {
  test("defaults: a slug from the name, flags off, no images; a second product gets the next free slug", async () => {
    const first = await readJson(
      await admin("/api/admin/products", { name: "Café Crème Plugin!", user_id: owner.id }),
    );
    expect(first.data).toMatchObject({
      slug: "cafe-creme-plugin",
      description: "",
      discount: "0.00",
      featured: "0",
      hidden: "0",
      cover_image: null,
      cover_image_url: null,
      gallery_images: [],
      gallery_image_urls: "[]",
      tags: [],
      purchases: "0",
    });
    const second = await readJson(
      await admin("/api/admin/products", { name: "Café Crème Plugin", user_id: owner.id }),
    );
    expect(second.data.slug).toBe("cafe-creme-plugin-2");
  });

  test("an explicit slug that is taken → 422", async () => {
    await createProduct(t.ctx, owner, { slug: "taken-slug" });
    const response = await admin("/api/admin/products", {
      name: "Other",
      user_id: owner.id,
      slug: "taken-slug",
    });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The slug has already been taken.",
      errors: { slug: ["The slug has already been taken."] },
    });
  });

  test("unknown user, vendor and add-on target → 422 per field, nothing written", async () => {
    const before = (await t.ctx.db.select().from(products)).length;
    const response = await admin("/api/admin/products", {
      name: "Ghost",
      user_id: 999999,
      vendor_id: "888888",
      addon_to: 777777,
    });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The selected user id is invalid. (and 2 more errors)",
      errors: {
        user_id: ["The selected user id is invalid."],
        vendor_id: ["The selected vendor id is invalid."],
        addon_to: ["The selected addon to is invalid."],
      },
    });
    expect((await t.ctx.db.select().from(products)).length).toBe(before);
  });

  test("wrong types and unknown fields → 422 with Laravel wording", async () => {
    const response = await admin("/api/admin/products", {
      name: "",
      user_id: "abc",
      hidden: "1",
      discount: 150,
      tags: "a,b",
      slug: "Not A Slug",
      vendor_id: 1.5,
      price: 10,
    });
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors).toEqual({
      name: ["The name field is required."],
      user_id: ["The user id field must be an integer."],
      hidden: ["The hidden field must be true or false."],
      discount: ["The discount field must not be greater than 100."],
      tags: ["The tags field must be an array."],
      slug: ["The slug field format is invalid."],
      vendor_id: ["The vendor id field must be an integer."],
      price: ["The price field is prohibited."],
    });
    expect(body.message).toMatch(/^The .+\. \(and 7 more errors\)$/);
  });

  test("ids over 2^53 are refused, not rounded to another row", async () => {
    const response = await admin("/api/admin/products", { name: "Big", user_id: "9007199254740993" });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({ user_id: ["The selected user id is invalid."] });
  });
});

describe("PATCH /api/admin/products/{product}", () => {
  test("changes only the fields sent; null clears a nullable field", async () => {
    const product = await createProduct(t.ctx, owner, {
      vendor_id: vendor.id,
      tags: ["a"],
      cover_image: "c.png",
    });
    const response = await admin(
      `/api/admin/products/${product.id}`,
      { hidden: true, discount: 5, vendor_id: null, cover_image: null, name: "Renamed" },
      "PATCH",
    );
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    expect(data).toMatchObject({
      id: product.id,
      name: "Renamed",
      slug: product.slug,
      hidden: "1",
      discount: "5.00",
      vendor_id: null,
      cover_image: null,
      cover_image_url: null,
      tags: ["a"],
    });
    expect(Date.parse(data.updated_at)).toBeGreaterThanOrEqual(product.updatedAt.getTime());
  });

  test("a product cannot be an add-on to itself; a slug of another product is taken", async () => {
    const product = await createProduct(t.ctx, owner);
    const other = await createProduct(t.ctx, owner);
    const response = await admin(
      `/api/admin/products/${product.id}`,
      { addon_to: product.id, slug: other.slug },
      "PATCH",
    );
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      addon_to: ["The selected addon to is invalid."],
      slug: ["The slug has already been taken."],
    });
    const ok = await admin(
      `/api/admin/products/${product.id}`,
      { addon_to: other.id, slug: product.slug },
      "PATCH",
    );
    expect((await readJson(ok)).data).toMatchObject({ addon_to: other.id, slug: product.slug });
  });

  test("an unknown product → 404", async () => {
    const response = await admin("/api/admin/products/99999999", { name: "x" }, "PATCH");
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "Product not found." });
  });
});
