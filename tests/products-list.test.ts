import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { licenses, usageDays } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  createProduct,
  createPurchase,
  createRole,
  createUser,
  insertVersionRow,
  tokenFor,
} from "./helpers/factories.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

// GET /api/products over a real socket and database: who sees which products (hidden, disabled and
// soft-deleted ones; another vendor's), the search, the pages, the 422s.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
type Who = "admin" | "narrowedAdmin" | "vendor" | "other" | "customer" | "manager";
const tokens = {} as Record<Who, string>;
type What = "sold" | "vended" | "hidden" | "disabled" | "deleted" | "othersListed" | "othersHidden";
/** Product ids by what they are. */
const ids = {} as Record<What, number>;
let vendorSession: { cookie: string; csrf: string };

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  const admin = await createUser(t.ctx, { role: "admin" });
  const vendor = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  const other = await createUser(t.ctx, { role: "vendor" });
  const customer = await createUser(t.ctx);
  const manager = await createUser(t.ctx, { role: (await createRole(t.ctx, ["products.manage"])).name });
  tokens.admin = await tokenFor(t.ctx, admin);
  tokens.narrowedAdmin = await tokenFor(t.ctx, admin, ["versions.publish"]);
  tokens.vendor = await tokenFor(t.ctx, vendor);
  tokens.other = await tokenFor(t.ctx, other);
  tokens.customer = await tokenFor(t.ctx, customer);
  tokens.manager = await tokenFor(t.ctx, manager);
  vendorSession = await signIn(base, vendor.email, PASSWORD);

  // The vendor's: one as seller, one as vendor of another seller's product, one hidden, one
  // disabled, one soft-deleted. The other vendor's: a listed one and a hidden one.
  ids.sold = (await createProduct(t.ctx, vendor, { name: "Auction House" })).id;
  ids.vended = (await createProduct(t.ctx, other, { name: "Backup Buddy", vendor_id: vendor.id })).id;
  ids.hidden = (await createProduct(t.ctx, vendor, { name: "Chat 100% Plus", hidden: true })).id;
  ids.disabled = (await createProduct(t.ctx, vendor, { name: "Dungeon_Maps", disabled: true })).id;
  ids.deleted = (await createProduct(t.ctx, vendor, { name: "Economy" })).id;
  await fetch(`${base}/api/admin/products/${ids.deleted}`, {
    method: "DELETE",
    headers: bearer(tokens.admin),
  });
  ids.othersListed = (await createProduct(t.ctx, other, { name: "Furnace" })).id;
  ids.othersHidden = (await createProduct(t.ctx, other, { name: "Graves", hidden: true })).id;
  await createPurchase(t.ctx, customer, { id: ids.sold });
  await createPurchase(t.ctx, customer, { id: ids.sold });
}, 60_000);
afterAll(() => t.close());

const list = (query: string, token: string | undefined) =>
  fetch(`${base}/api/products${query}`, { headers: token === undefined ? {} : bearer(token) });

/** The listed products' ids, in order, from a 200. */
async function listedIds(query: string, token: string): Promise<number[]> {
  const response = await list(query, token);
  expect(response.status).toBe(200);
  return (await readJson(response)).data.map((p: { id: number }) => p.id);
}

describe("GET /api/products: who sees what", () => {
  test("an admin sees every live product by name, hidden and disabled ones too, not the deleted one", async () => {
    expect(await listedIds("", tokens.admin)).toEqual([
      ids.sold,
      ids.vended,
      ids.hidden,
      ids.disabled,
      ids.othersListed,
      ids.othersHidden,
    ]);
  });

  test("products.manage is enough to see them all", async () => {
    expect(await listedIds("", tokens.manager)).toEqual(await listedIds("", tokens.admin));
  });

  test("?deleted=1 adds the soft-deleted ones, with their deleted_at", async () => {
    const response = await list("?deleted=1", tokens.admin);
    const { data } = await readJson(response);
    expect(data.map((p: { id: number }) => p.id)).toEqual([
      ids.sold,
      ids.vended,
      ids.hidden,
      ids.disabled,
      ids.deleted,
      ids.othersListed,
      ids.othersHidden,
    ]);
    const deleted = data.find((p: { id: number }) => p.id === ids.deleted);
    expect(deleted.deleted_at).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(data.filter((p: { deleted_at: unknown }) => p.deleted_at !== null)).toHaveLength(1);
    expect(await listedIds("?deleted=0", tokens.admin)).not.toContain(ids.deleted);
  });

  test("a vendor sees only their own (as seller or vendor), hidden and disabled ones too", async () => {
    expect(await listedIds("", tokens.vendor)).toEqual([ids.sold, ids.vended, ids.hidden, ids.disabled]);
    expect(await listedIds("?deleted=1", tokens.vendor)).toEqual([
      ids.sold,
      ids.vended,
      ids.hidden,
      ids.disabled,
      ids.deleted,
    ]);
    // The other vendor sees the product they sell (Backup Buddy) and theirs, never the vendor's own.
    expect(await listedIds("", tokens.other)).toEqual([ids.vended, ids.othersListed, ids.othersHidden]);
  });

  test("a customer owns nothing: an empty page, even though listed products exist", async () => {
    const response = await list("", tokens.customer);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      data: [],
      links: { first: "http://depot.test/api/products?page=1", last: null, prev: null, next: null },
      meta: { current_page: 1, from: null, path: "http://depot.test/api/products", per_page: 15, to: null },
    });
  });

  test("a token narrowed below products.manage lists as its owner would without it", async () => {
    // The admin owns no product, so the narrowed token lists none.
    expect(await listedIds("", tokens.narrowedAdmin)).toEqual([]);
  });

  test("the dashboard's session cookie works as a bearer token does", async () => {
    const response = await fetch(`${base}/api/products`, { headers: { cookie: vendorSession.cookie } });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data.map((p: { id: number }) => p.id)).toEqual(
      await listedIds("", tokens.vendor),
    );
  });

  test("no credentials or a bad token: 401, nothing listed", async () => {
    for (const token of [undefined, "garbled"]) {
      const response = await list("", token);
      expect(response.status).toBe(401);
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  });
});

describe("GET /api/products: the answer", () => {
  test("each item is the Product JSON of GET /api/products/{id}, purchases counted", async () => {
    const response = await list("", tokens.vendor);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    for (const item of data) {
      const one = await fetch(`${base}/api/products/${item.id}`, { headers: bearer(tokens.vendor) });
      expect(item).toEqual((await readJson(one)).data);
    }
    const sold = data[0];
    expect(sold).toMatchObject({
      id: ids.sold,
      name: "Auction House",
      hidden: "0",
      disabled: "0",
      purchases: "2",
    });
    expect(data[2]).toMatchObject({ id: ids.hidden, hidden: "1", disabled: "0", purchases: "0" });
    expect(data[3]).toMatchObject({ id: ids.disabled, hidden: "0", disabled: "1" });
    for (const count of ["impressions", "downloads", "purchases"]) expect(typeof sold[count]).toBe("string");
    expect(typeof sold.user_id).toBe("number");
  });

  test("?search= matches part of the name in any case; % and _ are plain characters", async () => {
    expect(await listedIds("?search=AUCTION", tokens.admin)).toEqual([ids.sold]);
    expect(await listedIds("?search=%20house%20", tokens.admin)).toEqual([ids.sold]);
    expect(await listedIds(`?search=${encodeURIComponent("100%")}`, tokens.admin)).toEqual([ids.hidden]);
    expect(await listedIds(`?search=${encodeURIComponent("%")}`, tokens.admin)).toEqual([ids.hidden]);
    expect(await listedIds("?search=_", tokens.admin)).toEqual([ids.disabled]);
    expect(await listedIds("?search=e", tokens.vendor)).toEqual([ids.sold, ids.disabled]);
    // Searching stays within what the caller may see.
    expect(await listedIds("?search=furnace", tokens.vendor)).toEqual([]);
    expect(await listedIds("?search=", tokens.vendor)).toHaveLength(4);
  });

  test("pages of ?per_page, with the next page's link keeping the filters", async () => {
    const response = await list("?per_page=2&search=n", tokens.admin);
    const body = await readJson(response);
    // An "n": Auction House, Dungeon_Maps, Furnace (and Economy, deleted).
    expect(body.data.map((p: { id: number }) => p.id)).toEqual([ids.sold, ids.disabled]);
    expect(body.links.next).toBe("http://depot.test/api/products?per_page=2&search=n&page=2");
    expect(body.meta).toEqual({
      current_page: 1,
      from: 1,
      path: "http://depot.test/api/products",
      per_page: 2,
      to: 2,
    });
    expect(await listedIds("?per_page=2&search=n&page=2", tokens.admin)).toEqual([ids.othersListed]);
  });

  test("bad query values: one 422 naming each field", async () => {
    const response = await list("?per_page=0&deleted=yes&page=x&counts=2", tokens.admin);
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors).toEqual({
      page: ["The page field must be an integer of at least 1."],
      per_page: ["The per page field must be an integer between 1 and 100."],
      deleted: ["The deleted field must be 0 or 1."],
      counts: ["The counts field must be 0 or 1."],
    });
    expect(typeof body.message).toBe("string");
    const nul = await list("?search=a%00b", tokens.admin);
    expect(nul.status).toBe(422);
    expect((await readJson(nul)).errors).toEqual({
      search: ["The search field must not contain NUL characters."],
    });
    const long = await list(`?search=${"x".repeat(256)}`, tokens.admin);
    expect(long.status).toBe(422);
    expect(Object.keys((await readJson(long)).errors)).toEqual(["search"]);
  });
});

describe("GET /api/products?counts=1: the dashboard table's counts", () => {
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

  test("versions (drafts and yanks too), the latest published, licenses, validations of 7 days", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const token = await tokenFor(t.ctx, owner);
    const product = await createProduct(t.ctx, owner, { name: "Counted" });
    await createProduct(t.ctx, owner, { name: "Counted Empty" });
    const version = (versionNumber: string, status: "published" | "draft" | "yanked") =>
      insertVersionRow(t.ctx, {
        productId: product.id,
        versionNumber,
        title: versionNumber,
        changelog: "",
        changelogFormat: "markdown",
        status,
      });
    await version("1.0.0", "published");
    await version("1.1.0", "published");
    await version("1.2.0", "yanked");
    await version("2.0.0", "draft");
    const holder = await createUser(t.ctx);
    for (const key of ["COUNT-A", "COUNT-B"])
      await t.ctx.db.insert(licenses).values({
        id: crypto.randomUUID(),
        key,
        userId: holder.id,
        creatorId: owner.id,
        productId: product.id,
      });
    // Today and 6 days ago count; 7 days ago is outside; another series is not a validation.
    await t.ctx.db.insert(usageDays).values([
      { day: day(0), productId: product.id, series: "validations", detail: "VALID", count: 5 },
      { day: day(0), productId: product.id, series: "validations", detail: "EXPIRED", count: 2 },
      { day: day(6), productId: product.id, series: "validations", detail: "VALID", count: 3 },
      { day: day(7), productId: product.id, series: "validations", detail: "VALID", count: 100 },
      { day: day(0), productId: product.id, series: "activations", count: 9 },
    ]);

    const response = await list("?counts=1&search=counted", token);
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    expect(data.map((p: { name: string }) => p.name)).toEqual(["Counted", "Counted Empty"]);
    expect(data[0].counts).toEqual({ versions: 4, latest_version: "1.1.0", licenses: 2, validations_7d: 10 });
    expect(data[1].counts).toEqual({ versions: 0, latest_version: null, licenses: 0, validations_7d: 0 });
    // The rest of each item is the plain list's, which has no counts.
    const plain = (await readJson(await list("?search=counted", token))).data;
    expect(plain[0].counts).toBeUndefined();
    expect(data.map(({ counts: _, ...rest }: { counts: unknown }) => rest)).toEqual(plain);
    expect((await readJson(await list("?counts=0&search=counted", token))).data).toEqual(plain);
  });
});
