import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { licenseIps, licenses, products } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  apiKeyFor,
  createProduct,
  createPurchase,
  createRole,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

// The dashboard's face of the license service (/api/products/{product}/licenses…) over a real socket
// and database: who may (owners, products.manage, admins), who gets 404 or 403, the list with its
// search, creating by e-mail with its 422s, revoking (validation then answers REVOKED) and addresses.

let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FORBIDDEN = { message: "This action is unauthorized." };
const PRODUCT_NOT_FOUND = { message: "Product not found." };
const LICENSE_NOT_FOUND = { message: "License not found." };

let vendor: Awaited<ReturnType<typeof createUser>>;
let coVendor: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
let other: Awaited<ReturnType<typeof createUser>>;
let product: Awaited<ReturnType<typeof createProduct>>;
let hidden: Awaited<ReturnType<typeof createProduct>>;
let elsewhere: Awaited<ReturnType<typeof createProduct>>;
let session: { cookie: string; csrf: string };
const as: Record<string, string> = {};
let apiKey: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  vendor = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  coVendor = await createUser(t.ctx, { role: "vendor" });
  customer = await createUser(t.ctx, {
    name: "Carla Customer",
    email: `carla-${crypto.randomUUID()}@Example.com`,
  });
  other = await createUser(t.ctx, { name: "Olaf Other" });
  const stranger = await createUser(t.ctx, { role: "vendor" });
  const manager = await createUser(t.ctx, { role: (await createRole(t.ctx, ["products.manage"])).name });
  const admin = await createUser(t.ctx, { role: "admin" });
  product = await createProduct(t.ctx, vendor, { vendor_id: coVendor.id });
  hidden = await createProduct(t.ctx, vendor, { hidden: true });
  elsewhere = await createProduct(t.ctx, stranger);
  // The vendor's customers: a license names only those (or, for an admin, anyone).
  await createPurchase(t.ctx, customer, hidden);
  await createPurchase(t.ctx, other, product);
  session = await signIn(base, vendor.email, PASSWORD);
  as.vendor = await tokenFor(t.ctx, vendor);
  as.coVendor = await tokenFor(t.ctx, coVendor);
  as.stranger = await tokenFor(t.ctx, stranger);
  as.customer = await tokenFor(t.ctx, customer);
  as.manager = await tokenFor(t.ctx, manager);
  as.admin = await tokenFor(t.ctx, admin);
  as.narrowedAdmin = await tokenFor(t.ctx, admin, ["users.view"]);
  apiKey = (await apiKeyFor(t.ctx)).key;
}, 60_000);
afterAll(() => t.close());

/** A same-origin request of the dashboard's, with the vendor's session and CSRF token. */
const withSession = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: {
    ...sessionHeaders(session),
    ...(body === undefined ? {} : { "content-type": "application/json" }),
  },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const withToken = (token: string, method = "GET", body?: unknown): RequestInit => ({
  method,
  headers: { ...bearer(token), ...(body === undefined ? {} : { "content-type": "application/json" }) },
  body: body === undefined ? undefined : JSON.stringify(body),
});
const licensesOf = (productId: number, rest = "") => `${base}/api/products/${productId}/licenses${rest}`;

/** A license of `productId` for `owner`, made through the vendor face with the vendor's session. */
async function newLicense(productId: number, owner: { email: string }, extra: Record<string, unknown> = {}) {
  const response = await fetch(
    licensesOf(productId),
    withSession("POST", { owner_email: owner.email, ...extra }),
  );
  if (response.status !== 201)
    throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return (await readJson(response)).data;
}

async function validate(key: string, ip: string, productId = product.id) {
  const response = await fetch(`${base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": apiKey },
    body: JSON.stringify({ key, productId: String(productId), ip }),
  });
  expect(response.status).toBe(200);
  return readJson(response);
}

const count = async () => (await t.ctx.db.select().from(licenses)).length;

describe("POST /api/products/{product}/licenses", () => {
  test("the owner's session: 201 with the license, owned by the e-mail's user, created by the caller", async () => {
    const response = await fetch(
      licensesOf(product.id),
      withSession("POST", { owner_email: customer.email.toUpperCase(), expires: "2030-01-31", max_ips: 2 }),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: expect.stringMatching(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/),
      owner: { id: customer.id, name: "Carla Customer", email: customer.email },
      expires: "2030-01-31T00:00:00.000Z",
      revoked: false,
      status: "active",
      max_ips: 2,
      ip_count: 0,
      max_machines: null,
      machine_count: 0,
      floating: false,
      heartbeat_seconds: null,
      machine_file_ttl_max: null,
      policy_id: null,
      created_at: expect.stringMatching(ISO),
    });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, data.id));
    expect(row?.creatorId).toBe(vendor.id);
    expect(row?.productId).toBe(product.id);
    // The license is a real one: it validates, from the license API's side.
    expect((await validate(data.key, "192.0.2.1")).code).toBe("VALID");
  });

  test("without max_ips the configured default, without expires never", async () => {
    const data = await newLicense(product.id, customer);
    expect(data.max_ips).toBe(t.ctx.config.licenseDefaultMaxIps);
    expect(data.expires).toBeNull();
  });

  test("the co-vendor (vendor_id), products.manage and an admin may too; the creator is whoever asked", async () => {
    for (const [name, creator] of [
      ["coVendor", coVendor.id],
      ["manager", null],
      ["admin", null],
    ] as const) {
      const response = await fetch(
        licensesOf(product.id),
        withToken(as[name] ?? "", "POST", { owner_email: customer.email }),
      );
      expect(response.status).toBe(201);
      const { data } = await readJson(response);
      const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, data.id));
      if (creator !== null) expect(row?.creatorId).toBe(creator);
      expect(row?.productId).toBe(product.id);
    }
  });

  // Licensing by e-mail must not tell a vendor who has an account: an address nobody has and one of
  // someone who never dealt with the vendor (an admin, another vendor's customer) read the same.
  test("an unknown e-mail and a user who is not the vendor's customer: the same 422, nothing made", async () => {
    const admin = await createUser(t.ctx, { role: "admin", name: "Ada Admin" });
    const theirs = await createUser(t.ctx, { name: "Sam Stranger's Customer" });
    await createPurchase(t.ctx, theirs, elsewhere);
    const before = await count();
    const answers = [];
    for (const email of ["nobody@example.com", admin.email, theirs.email.toUpperCase()]) {
      const response = await fetch(licensesOf(product.id), withSession("POST", { owner_email: email }));
      expect(response.status).toBe(422);
      answers.push(await response.text());
    }
    const refusal = {
      message: "No customer of this product's owner has this e-mail address.",
      errors: { owner_email: ["No customer of this product's owner has this e-mail address."] },
    };
    expect(answers.map((text) => JSON.parse(text))).toEqual([refusal, refusal, refusal]);
    expect(answers.join()).not.toContain(String(admin.id));
    expect(await count()).toBe(before);
    // An admin (users.view) may name anyone.
    const byAdmin = await fetch(
      licensesOf(product.id),
      withToken(as.admin ?? "", "POST", { owner_email: theirs.email }),
    );
    expect(byAdmin.status).toBe(201);
    expect((await readJson(byAdmin)).data.owner).toEqual({
      id: theirs.id,
      name: theirs.name,
      email: theirs.email,
    });
  });

  test("a customer of the co-vendor's other product is the product's owners' customer too", async () => {
    const buyer = await createUser(t.ctx, { name: "Bo Buyer" });
    await createPurchase(t.ctx, buyer, await createProduct(t.ctx, coVendor));
    const response = await fetch(licensesOf(product.id), withSession("POST", { owner_email: buyer.email }));
    expect(response.status).toBe(201);
    expect((await readJson(response)).data.owner).toEqual({
      id: buyer.id,
      name: "Bo Buyer",
      email: buyer.email,
    });
  });

  test("an expires already past: 422 on expires, nothing made", async () => {
    const before = await count();
    for (const expires of ["2020-01-01T00:00:00Z", new Date(Date.now() - 1000).toISOString()]) {
      const response = await fetch(
        licensesOf(product.id),
        withSession("POST", { owner_email: customer.email, expires }),
      );
      expect(response.status).toBe(422);
      expect(await readJson(response)).toEqual({
        message: "The expires field must be a date after now.",
        errors: { expires: ["The expires field must be a date after now."] },
      });
    }
    expect(await count()).toBe(before);
  });

  test("bad expires and max_ips are 422s named together, as the license API words expires", async () => {
    const before = await count();
    const response = await fetch(
      licensesOf(product.id),
      withSession("POST", { owner_email: "nobody@example.com", expires: "2030-02-30", max_ips: 0 }),
    );
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(typeof body.message).toBe("string");
    // Who may be named is checked once the body is whole (it depends on the product and the caller).
    expect(Object.keys(body.errors).sort()).toEqual(["expires", "max_ips"]);
    expect(body.errors.expires).toEqual(["The expires field must be a valid ISO 8601 date-time."]);
    // The same expires to the license API gets the same words.
    const v1 = await fetch(`${base}/api/v1/licenses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({
        ownerId: String(customer.id),
        creatorId: String(vendor.id),
        productId: String(product.id),
        expires: "2030-02-30",
      }),
    });
    expect((await readJson(v1)).errors.expires).toEqual(body.errors.expires);
    expect(await count()).toBe(before);
  });

  test("no owner_email, an unknown field, or a body that is not JSON: 4xx with a message, never 500", async () => {
    const before = await count();
    const missing = await fetch(licensesOf(product.id), withSession("POST", {}));
    expect(missing.status).toBe(422);
    expect((await readJson(missing)).errors.owner_email).toHaveLength(1);
    const extra = await fetch(
      licensesOf(product.id),
      withSession("POST", { owner_email: customer.email, userId: 1 }),
    );
    expect(extra.status).toBe(422);
    const garbled = await fetch(licensesOf(product.id), {
      method: "POST",
      headers: { ...sessionHeaders(session), "content-type": "application/json" },
      body: "{",
    });
    expect(garbled.status).toBe(400);
    expect(typeof (await readJson(garbled)).message).toBe("string");
    expect(await count()).toBe(before);
  });

  test("refused: 401 without credentials, 403 for those who see the product, 404 for those who do not; nothing made", async () => {
    const before = await count();
    const body = { owner_email: customer.email };
    const none = await fetch(licensesOf(product.id), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(none.status).toBe(401);
    expect(await readJson(none)).toEqual({ message: "Unauthenticated." });
    for (const name of ["stranger", "customer", "narrowedAdmin"]) {
      const listed = await fetch(licensesOf(product.id), withToken(as[name] ?? "", "POST", body));
      expect(listed.status).toBe(403);
      expect(await readJson(listed)).toEqual(FORBIDDEN);
      const unlisted = await fetch(licensesOf(hidden.id), withToken(as[name] ?? "", "POST", body));
      expect(unlisted.status).toBe(404);
      expect(await readJson(unlisted)).toEqual(PRODUCT_NOT_FOUND);
    }
    const unknown = await fetch(licensesOf(999_999), withSession("POST", body));
    expect(unknown.status).toBe(404);
    const garbage = await fetch(`${base}/api/products/abc/licenses`, withSession("POST", body));
    expect(garbage.status).toBe(404);
    expect(await count()).toBe(before);
  });

  test("a deleted product gets no new licenses (404, as publishing), but its owner still lists them", async () => {
    const gone = await createProduct(t.ctx, vendor);
    const before = await newLicense(gone.id, customer);
    await t.ctx.db.update(products).set({ deletedAt: new Date() }).where(eq(products.id, gone.id));
    const count0 = await count();
    const response = await fetch(licensesOf(gone.id), withSession("POST", { owner_email: customer.email }));
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual(PRODUCT_NOT_FOUND);
    expect(await count()).toBe(count0);
    const listed = await fetch(licensesOf(gone.id), withSession("GET"));
    expect(listed.status).toBe(200);
    expect((await readJson(listed)).data.map((l: { id: string }) => l.id)).toEqual([before.id]);
  });

  test("the session without its CSRF token: 419, nothing made", async () => {
    const before = await count();
    const response = await fetch(licensesOf(product.id), {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "content-type": "application/json",
        "sec-fetch-site": "same-origin",
      },
      body: JSON.stringify({ owner_email: customer.email }),
    });
    expect(response.status).toBe(419);
    expect(await count()).toBe(before);
  });
});

describe("GET /api/products/{product}/licenses", () => {
  let product2: Awaited<ReturnType<typeof createProduct>>;
  const made: Record<string, { id: string; key: string }> = {};

  beforeAll(async () => {
    product2 = await createProduct(t.ctx, vendor);
    made.first = await newLicense(product2.id, customer);
    made.second = await newLicense(product2.id, other, { max_ips: 3 });
    // Made to expire later, then moved into the past (a past expires is refused at creation).
    made.expired = await newLicense(product2.id, other, { expires: "2031-01-01T00:00:00Z" });
    await t.ctx.db
      .update(licenses)
      .set({ expires: new Date("2020-01-01T00:00:00Z") })
      .where(eq(licenses.id, made.expired?.id ?? ""));
    // Another product's license never shows here.
    made.elsewhere = await newLicense(hidden.id, customer);
    await validate(made.second?.key ?? "", "192.0.2.7", product2.id);
    await validate(made.second?.key ?? "", "192.0.2.8", product2.id);
  });

  const list = async (query = "", token?: string) => {
    const response = await fetch(
      licensesOf(product2.id, query),
      token ? withToken(token) : withSession("GET"),
    );
    expect(response.status).toBe(200);
    return readJson(response);
  };

  test("newest first, simple-paginated, each with its owner, status and address count", async () => {
    const body = await list();
    expect(body.data.map((l: { id: string }) => l.id)).toEqual([
      made.expired?.id,
      made.second?.id,
      made.first?.id,
    ]);
    expect(body.data[0]).toMatchObject({ status: "expired", revoked: false, owner: { id: other.id } });
    expect(body.data[1]).toMatchObject({
      status: "active",
      max_ips: 3,
      ip_count: 2,
      owner: { name: "Olaf Other" },
    });
    expect(body.data[2]).toMatchObject({ status: "active", ip_count: 0, owner: { email: customer.email } });
    expect(body.links).toEqual({
      first: `http://depot.test/api/products/${product2.id}/licenses?page=1`,
      last: null,
      prev: null,
      next: null,
    });
    expect(body.meta).toMatchObject({ current_page: 1, from: 1, to: 3, per_page: 15 });
    const paged = await list("?per_page=1&page=2");
    expect(paged.data.map((l: { id: string }) => l.id)).toEqual([made.second?.id]);
    expect(paged.links.next).toContain("page=3");
  });

  test("search: the key exactly or its beginning (any case), the owner's e-mail or name in part (any case)", async () => {
    const ids = async (search: string) =>
      (await list(`?search=${encodeURIComponent(search)}`)).data.map((l: { id: string }) => l.id);
    const key = made.first?.key ?? "";
    expect(await ids(key)).toEqual([made.first?.id]);
    expect(await ids(key.slice(0, 8).toLowerCase())).toEqual([made.first?.id]);
    expect(await ids(customer.email.slice(2, 12).toUpperCase())).toEqual([made.first?.id]);
    expect(await ids("olaf oth")).toEqual([made.expired?.id, made.second?.id]);
    // The middle of a key is not a match (only its beginning is), nor are LIKE wildcards.
    expect(await ids(key.slice(6, 17))).toEqual([]);
    expect(await ids("%")).toEqual([]);
    expect(await ids("_")).toEqual([]);
    expect(await ids("  ")).toHaveLength(3);
  });

  test("with a bearer token too; products.manage and the admin see the list; others are refused", async () => {
    expect((await list("", as.vendor)).data).toHaveLength(3);
    expect((await list("", as.manager)).data).toHaveLength(3);
    expect((await list("", as.admin)).data).toHaveLength(3);
    const stranger = await fetch(licensesOf(product2.id), withToken(as.stranger ?? ""));
    expect(stranger.status).toBe(403);
    expect(await readJson(stranger)).toEqual(FORBIDDEN);
    const hiddenList = await fetch(licensesOf(hidden.id), withToken(as.stranger ?? ""));
    expect(hiddenList.status).toBe(404);
    expect(await readJson(hiddenList)).toEqual(PRODUCT_NOT_FOUND);
    const none = await fetch(licensesOf(product2.id));
    expect(none.status).toBe(401);
    // The stranger's own product: theirs to manage, with no licenses yet.
    const own = await fetch(licensesOf(elsewhere.id), withToken(as.stranger ?? ""));
    expect(own.status).toBe(200);
    expect((await readJson(own)).data).toEqual([]);
  });

  test("a bad page or per_page is a 422 naming it; an over-long search or one with a NUL too", async () => {
    const response = await fetch(licensesOf(product2.id, "?per_page=1000"), withSession("GET"));
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(Object.keys(body.errors)).toEqual(["per_page"]);
    const long = await fetch(licensesOf(product2.id, `?search=${"a".repeat(300)}`), withSession("GET"));
    expect(long.status).toBe(422);
    expect(Object.keys((await readJson(long)).errors)).toEqual(["search"]);
    // A NUL character PostgreSQL could not take: a 422 on search, not a failed query's 500.
    const nul = await fetch(licensesOf(product2.id, "?search=a%00b"), withSession("GET"));
    expect(nul.status).toBe(422);
    expect(await readJson(nul)).toEqual({
      message: "The search field must not contain NUL characters.",
      errors: { search: ["The search field must not contain NUL characters."] },
    });
  });
});

describe("DELETE /api/products/{product}/licenses/{license}", () => {
  test("204; listed as revoked from then on, and validation answers REVOKED", async () => {
    const license = await newLicense(product.id, customer);
    expect((await validate(license.key, "192.0.2.20")).code).toBe("VALID");
    const response = await fetch(licensesOf(product.id, `/${license.id}`), withSession("DELETE"));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    const listed = await readJson(
      await fetch(licensesOf(product.id, `?search=${license.key}`), withSession("GET")),
    );
    expect(listed.data).toEqual([
      expect.objectContaining({ id: license.id, revoked: true, status: "revoked" }),
    ]);
    const answer = await validate(license.key, "192.0.2.20");
    expect(answer).toMatchObject({ valid: false, code: "REVOKED" });
    // Again: still 204, still revoked.
    expect((await fetch(licensesOf(product.id, `/${license.id}`), withSession("DELETE"))).status).toBe(204);
  });

  test("a license of another product under this path, an unknown or malformed id: 404, nothing revoked", async () => {
    const theirs = await newLicense(hidden.id, customer);
    for (const id of [theirs.id, crypto.randomUUID(), "not-a-uuid"]) {
      const response = await fetch(licensesOf(product.id, `/${id}`), withSession("DELETE"));
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual(LICENSE_NOT_FOUND);
    }
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, theirs.id));
    expect(row?.revokedAt).toBeNull();
  });

  test("refused callers change nothing: 403 for a stranger of a listed product, 404 of a hidden one", async () => {
    const license = await newLicense(product.id, customer);
    const secret = await newLicense(hidden.id, customer);
    const listed = await fetch(
      licensesOf(product.id, `/${license.id}`),
      withToken(as.stranger ?? "", "DELETE"),
    );
    expect(listed.status).toBe(403);
    expect(await readJson(listed)).toEqual(FORBIDDEN);
    const unlisted = await fetch(
      licensesOf(hidden.id, `/${secret.id}`),
      withToken(as.customer ?? "", "DELETE"),
    );
    expect(unlisted.status).toBe(404);
    expect(await readJson(unlisted)).toEqual(PRODUCT_NOT_FOUND);
    const rows = await t.ctx.db.select().from(licenses).where(eq(licenses.productId, product.id));
    expect(rows.find((r) => r.id === license.id)?.revokedAt).toBeNull();
    expect((await validate(secret.key, "192.0.2.30", hidden.id)).code).toBe("VALID");
  });
});

describe("a license's addresses", () => {
  test("listed first seen first; one forgotten, then all; more than 3 resets a day for the vendor", async () => {
    const license = await newLicense(product.id, customer, { max_ips: 5 });
    await validate(license.key, "192.0.2.40");
    await validate(license.key, "2001:db8::1");
    const ips = await fetch(licensesOf(product.id, `/${license.id}/ips`), withSession("GET"));
    expect(ips.status).toBe(200);
    const body = await readJson(ips);
    expect(body).toEqual({
      data: [
        {
          ip: "192.0.2.40",
          first_seen_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
        },
        {
          ip: "2001:db8::1",
          first_seen_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
        },
      ],
    });
    const one = await fetch(licensesOf(product.id, `/${license.id}/ips/192.0.2.40`), withSession("DELETE"));
    expect(one.status).toBe(204);
    const left = await readJson(
      await fetch(licensesOf(product.id, `/${license.id}/ips`), withSession("GET")),
    );
    expect(left.data.map((row: { ip: string }) => row.ip)).toEqual(["2001:db8::1"]);
    const listed = await readJson(
      await fetch(licensesOf(product.id, `?search=${license.key}`), withSession("GET")),
    );
    expect(listed.data[0].ip_count).toBe(1);
    // The owner's own reset stops at 3 a day; the vendor's does not.
    for (let round = 0; round < 4; round++) {
      await validate(license.key, `198.51.100.${round + 1}`);
      const all = await fetch(licensesOf(product.id, `/${license.id}/ips`), withSession("DELETE"));
      expect(all.status).toBe(204);
    }
    const rows = await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, license.id));
    expect(rows).toEqual([]);
  });

  test("a license id in upper case names the same license; one that cannot be a uuid is its 404", async () => {
    const license = await newLicense(product.id, customer);
    await validate(license.key, "192.0.2.70");
    const upper = await fetch(licensesOf(product.id, `/${license.id.toUpperCase()}/ips`), withSession("GET"));
    expect(upper.status).toBe(200);
    expect((await readJson(upper)).data.map((row: { ip: string }) => row.ip)).toEqual(["192.0.2.70"]);
    const malformed = await fetch(licensesOf(product.id, "/not-a-uuid/ips"), withSession("GET"));
    expect(malformed.status).toBe(404);
    expect(await readJson(malformed)).toEqual(LICENSE_NOT_FOUND);
  });

  test("an address not registered: 404; not an address: 422 on ip; another product's license: 404", async () => {
    const license = await newLicense(product.id, customer);
    const unknown = await fetch(
      licensesOf(product.id, `/${license.id}/ips/192.0.2.99`),
      withSession("DELETE"),
    );
    expect(unknown.status).toBe(404);
    expect(await readJson(unknown)).toEqual({ message: "IP address not found." });
    const bad = await fetch(licensesOf(product.id, `/${license.id}/ips/not-an-ip`), withSession("DELETE"));
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toEqual({
      message: "The ip field must be a valid IP address.",
      errors: { ip: ["The ip field must be a valid IP address."] },
    });
    const malformed = await fetch(licensesOf(product.id, `/${license.id}/ips/%E0`), withSession("DELETE"));
    expect(malformed.status).toBe(422);
    const theirs = await newLicense(hidden.id, customer);
    await validate(theirs.key, "192.0.2.50", hidden.id);
    for (const [method, rest] of [
      ["GET", "/ips"],
      ["DELETE", "/ips"],
      ["DELETE", "/ips/192.0.2.50"],
    ] as const) {
      const response = await fetch(licensesOf(product.id, `/${theirs.id}${rest}`), withSession(method));
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual(LICENSE_NOT_FOUND);
    }
    const kept = await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, theirs.id));
    expect(kept.map((row) => row.ip)).toEqual(["192.0.2.50"]);
  });

  test("refused: a stranger 403 (listed product), a customer 404 (hidden product); addresses stay", async () => {
    const license = await newLicense(hidden.id, customer);
    await validate(license.key, "192.0.2.60", hidden.id);
    const listedLicense = await newLicense(product.id, customer);
    await validate(listedLicense.key, "192.0.2.61");
    for (const [method, rest] of [
      ["GET", "/ips"],
      ["DELETE", "/ips"],
      ["DELETE", "/ips/192.0.2.61"],
    ] as const) {
      const stranger = await fetch(
        licensesOf(product.id, `/${listedLicense.id}${rest}`),
        withToken(as.stranger ?? "", method),
      );
      expect(stranger.status).toBe(403);
      const customerCall = await fetch(
        licensesOf(hidden.id, `/${license.id}${rest}`),
        withToken(as.customer ?? "", method),
      );
      expect(customerCall.status).toBe(404);
      expect(await readJson(customerCall)).toEqual(PRODUCT_NOT_FOUND);
    }
    expect(
      (await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, license.id))).length,
    ).toBe(1);
    expect(
      (await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, listedLicense.id))).length,
    ).toBe(1);
  });
});

describe("an owner's narrowed token", () => {
  test("versions.publish alone (a CI job's): 403 for every call, nothing made, revoked or forgotten", async () => {
    const narrowed = await tokenFor(t.ctx, vendor, ["versions.publish"]);
    const license = await newLicense(hidden.id, customer);
    await validate(license.key, "192.0.2.40", hidden.id);
    const before = await count();
    const calls: [string, string, unknown?][] = [
      ["GET", ""],
      ["POST", "", { owner_email: vendor.email }],
      ["DELETE", `/${license.id}`],
      ["GET", `/${license.id}/ips`],
      ["DELETE", `/${license.id}/ips`],
      ["DELETE", `/${license.id}/ips/192.0.2.40`],
    ];
    for (const [method, rest, body] of calls) {
      // The hidden product is the owner's to see (no 404): managing it is what is refused.
      const response = await fetch(licensesOf(hidden.id, rest), withToken(narrowed, method, body));
      expect({ call: `${method} ${rest}`, status: response.status }).toEqual({
        call: `${method} ${rest}`,
        status: 403,
      });
      expect(await readJson(response)).toEqual(FORBIDDEN);
    }
    expect(await count()).toBe(before);
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, license.id));
    expect(row?.revokedAt).toBeNull();
    expect(await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, license.id))).toHaveLength(
      1,
    );
    // The same token still does what it was made for, and reads the product it publishes to.
    const read = await fetch(`${base}/api/products/${hidden.id}`, withToken(narrowed));
    expect(read.status).toBe(200);
    // The owner's token with every ability (the default) manages the licenses as the session does.
    const full = await fetch(licensesOf(hidden.id, `/${license.id}/ips`), withToken(as.vendor ?? ""));
    expect(full.status).toBe(200);
    expect((await readJson(full)).data).toEqual([expect.objectContaining({ ip: "192.0.2.40" })]);
  });
});

describe("the license API is unchanged by the vendor face", () => {
  test("a license made in the dashboard reads the same through /api/v1/licenses, camelCase", async () => {
    const license = await newLicense(product.id, customer, { max_ips: 4 });
    const response = await fetch(`${base}/api/v1/licenses/${license.id}`, {
      headers: { "x-api-key": apiKey },
    });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      licenses: [
        {
          id: license.id,
          userId: String(customer.id),
          creatorId: String(vendor.id),
          productId: String(product.id),
          expires: null,
          maxIps: 4,
          key: license.key,
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      ],
      nextPage: null,
    });
  });
});
