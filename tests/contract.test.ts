/**
 * The response-shape contract: every read endpoint of the interface, every field's JSON type, written down
 * here from the interface's field tables independently of the route schemas, so a type regression anywhere fails CI.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createOption, createProduct, createPurchase, createUser, tokenFor } from "./helpers/factories.ts";

type JsonType = "integer" | "number" | "string" | "date-time" | "array" | "object";
/** A field's interface type; `?` marks the fields that may be null (an absent image, a live product's deleted_at). */
type Field = JsonType | `${JsonType}?`;

const USER: Record<string, Field> = { id: "integer", name: "string", email: "string", role: "object" };
const ROLE: Record<string, Field> = {
  id: "integer",
  name: "string",
  permissions: "array",
  created_at: "date-time",
  updated_at: "date-time",
};
const PRODUCT: Record<string, Field> = {
  id: "integer",
  name: "string",
  description: "string",
  slug: "string",
  discount: "string",
  cover_image: "string?",
  created_at: "date-time",
  updated_at: "date-time",
  long_description: "string",
  featured: "string",
  gallery_images: "array",
  user_id: "integer",
  category_id: "integer?",
  hidden: "string",
  addon_to: "integer?",
  disabled: "string",
  free: "string",
  vendor_id: "integer?",
  placeholder_injection: "string",
  tags: "array",
  deleted_at: "date-time?",
  youtube_video_url: "string?",
  cover_image_url: "string?",
  gallery_image_urls: "string",
  impressions: "string",
  downloads: "string",
  purchases: "string",
  full_url: "string",
};
const PURCHASE: Record<string, Field> = {
  id: "integer",
  order_id: "integer",
  product_id: "integer",
  quantity: "integer",
  created_at: "date-time",
  updated_at: "date-time",
  unit_price: "number",
  unit_price_currency_id: "integer",
  original_currency_id: "integer",
  original_unit_price: "number",
  currency_rate: "number",
  formatted_price: "string",
};
const PAGE_LINKS: Record<string, Field> = {
  first: "string",
  last: "string?",
  prev: "string?",
  next: "string?",
};
const PAGE_META: Record<string, Field> = {
  current_page: "integer",
  from: "integer?",
  path: "string",
  per_page: "integer",
  to: "integer?",
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value))
    return "date-time";
  return typeof value;
}

/** "where.field: expected X, got Y" for each mismatch, and for missing or extra fields. */
function violations(where: string, value: Record<string, unknown>, shape: Record<string, Field>): string[] {
  const problems: string[] = [];
  for (const [field, spec] of Object.entries(shape)) {
    if (!(field in value)) {
      problems.push(`${where}.${field}: missing`);
      continue;
    }
    const nullable = spec.endsWith("?");
    const expected = spec.replace("?", "");
    const actual = typeOf(value[field]);
    const fits =
      actual === expected ||
      (expected === "number" && actual === "integer") ||
      (expected === "string" && actual === "date-time") ||
      (nullable && actual === "null");
    if (!fits)
      problems.push(`${where}.${field}: expected ${spec}, got ${actual} (${JSON.stringify(value[field])})`);
  }
  for (const field of Object.keys(value))
    if (!(field in shape)) problems.push(`${where}.${field}: not in the interface`);
  return problems;
}

let t: TestApp;
let token: string;
let user: { id: number };
const productIds: number[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const admin = await createUser(t.ctx, { role: "admin" });
  token = await tokenFor(t.ctx, admin);
  user = await createUser(t.ctx);
  const vendor = await createUser(t.ctx, { role: "vendor" });
  // One product with every optional field set and one with none, so both sides of each "?" are seen.
  const bare = await createProduct(t.ctx, vendor);
  const full = await createProduct(t.ctx, vendor, {
    vendor_id: admin.id,
    category_id: 3,
    addon_to: bare.id,
    discount: 15,
    cover_image: "covers/full.png",
    gallery_images: ["g/1.png"],
    tags: ["tag"],
    youtube_video_url: "https://youtu.be/x",
    featured: true,
  });
  productIds.push(bare.id, full.id);
  const option = await createOption(t.ctx, full);
  await createPurchase(t.ctx, user, full, { option_id: option.id, unit_price: 10.5, currency: "GBP" });
  await createPurchase(t.ctx, user, bare, { unit_price: 3 });
  await t.request(`/api/admin/products/${bare.id}`, { method: "DELETE", headers: bearer(token) });
});
afterAll(() => t.close());

const get = async (path: string) => {
  const response = await t.request(path, { headers: bearer(token) });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("application/json");
  return readJson(response);
};

test("every read endpoint answers with the interface's field types", async () => {
  const problems: string[] = [];

  const userBody = await get(`/api/users/${user.id}`);
  problems.push(
    ...violations("User", userBody.data, USER),
    ...violations("User.role", userBody.data.role, ROLE),
  );
  expect(userBody.data.role.permissions.every((p: unknown) => typeof p === "string")).toBe(true);

  for (const id of productIds) {
    const { data } = await get(`/api/products/${id}`);
    problems.push(...violations(`Product ${id}`, data, PRODUCT));
    expect(JSON.parse(data.gallery_image_urls)).toBeArray();
    for (const flag of ["featured", "hidden", "disabled", "free", "placeholder_injection"]) {
      expect(["0", "1"]).toContain(data[flag]);
    }
    for (const count of ["impressions", "downloads", "purchases"]) expect(data[count]).toMatch(/^\d+$/);
    expect(data.discount).toMatch(/^\d+\.\d\d$/);
  }

  const page = await get("/api/purchases?per_page=1");
  problems.push(...violations("PurchasePage", page, { data: "array", links: "object", meta: "object" }));
  problems.push(...violations("links", page.links, PAGE_LINKS), ...violations("meta", page.meta, PAGE_META));
  const all = await get("/api/purchases");
  expect(all.data.length).toBe(2);
  for (const purchase of all.data)
    problems.push(...violations(`Purchase ${purchase.id}`, purchase, PURCHASE));
  // The interface types unit_price "number": a whole price still comes out as a JSON number, never a string.
  expect(all.data.map((p: { unit_price: unknown }) => typeof p.unit_price)).toEqual(["number", "number"]);

  const health = await readJson(await t.request("/api/health"));
  problems.push(...violations("Health", health, { status: "string" }));

  expect(problems).toEqual([]);
});
