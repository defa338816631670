// The admin pages' API: the user list (admins and users.view), changing a user's name and role
// (never the last admin's), the role and API-key lists, a product's options with their benefits, the
// purchase list's `?details=1` names, and whether a set-password link was e-mailed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../src/db/schema/index.ts";
import { LAST_ADMIN } from "../src/features/users/service.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  apiKeyFor,
  createBenefit,
  createOption,
  createProduct,
  createPurchase,
  createRole,
  createUser,
  tokenFor,
} from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const FORBIDDEN = { message: "This action is unauthorized." };

let t: TestApp;
let base: string;
let admin: { id: number; name: string; email: string };
let adminToken: string;
let viewerToken: string;
let vendorToken: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  admin = await createUser(t.ctx, { role: "admin", name: "Ada Admin" });
  adminToken = await tokenFor(t.ctx, admin);
  viewerToken = await tokenFor(
    t.ctx,
    await createUser(t.ctx, { role: (await createRole(t.ctx, ["users.view"])).name }),
  );
  vendorToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }));
}, 60_000);
afterAll(() => t.close());

const get = (path: string, token = adminToken) => fetch(`${base}${path}`, { headers: bearer(token) });
const patch = (path: string, body: unknown, token = adminToken) =>
  fetch(`${base}${path}`, json(body, { method: "PATCH", token }));

async function expect422(response: Response, fields: string[]) {
  expect(response.status).toBe(422);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = await readJson(response);
  expect(typeof body.message).toBe("string");
  expect(Object.keys(body.errors).sort()).toEqual(fields);
  return body;
}

describe("GET /api/admin/users", () => {
  test("users by name with their role, simple-paginated", async () => {
    const zoe = await createUser(t.ctx, { name: "zoe Zebra", role: "vendor" });
    const response = await get("/api/admin/users?per_page=100");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    const names: string[] = body.data.map((user: { name: string }) => user.name);
    // By name regardless of case.
    expect(names).toEqual([...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    const listed = body.data.find((user: { id: number }) => user.id === zoe.id);
    expect(listed).toEqual({
      id: zoe.id,
      name: "zoe Zebra",
      email: zoe.email,
      role: {
        id: expect.any(Number),
        name: "vendor",
        permissions: ["versions.publish"],
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    // The same User JSON as GET /api/users/:user.
    expect((await readJson(await get(`/api/users/${zoe.id}`))).data).toEqual(listed);
    expect(body.meta).toMatchObject({ current_page: 1, per_page: 100, from: 1 });
    expect(body.links.next).toBeNull();
  });

  test("search matches the name or the e-mail in any case; % and _ are plain characters", async () => {
    const mira = await createUser(t.ctx, { name: "Mira Searchable", email: "mira.unique@Example.org" });
    await createUser(t.ctx, { name: "Other 50% person" });
    const byName = await readJson(await get("/api/admin/users?search=searchABLE"));
    expect(byName.data.map((u: { id: number }) => u.id)).toEqual([mira.id]);
    const byEmail = await readJson(await get("/api/admin/users?search=MIRA.UNIQUE@example"));
    expect(byEmail.data.map((u: { id: number }) => u.id)).toEqual([mira.id]);
    const percent = await readJson(await get("/api/admin/users?search=50%25"));
    expect(percent.data.map((u: { name: string }) => u.name)).toEqual(["Other 50% person"]);
    expect((await readJson(await get("/api/admin/users?search=%25%25"))).data).toEqual([]);
    expect((await readJson(await get("/api/admin/users?search=_"))).data).toEqual([]);
    expect((await readJson(await get("/api/admin/users?search=nobody-at-all"))).data).toEqual([]);
  });

  test("role narrows to that role's users; an empty role filters nothing", async () => {
    const body = await readJson(await get("/api/admin/users?role=admin&per_page=100"));
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((u: { role: { name: string } }) => u.role.name === "admin")).toBe(true);
    expect(body.data.map((u: { id: number }) => u.id)).toContain(admin.id);
    const all = await readJson(await get("/api/admin/users?role=&per_page=100"));
    expect(all.data.length).toBeGreaterThan(body.data.length);
  });

  test("pages follow each other", async () => {
    const first = await readJson(await get("/api/admin/users?per_page=2"));
    expect(first.data).toHaveLength(2);
    expect(first.links.next).toBe("http://depot.test/api/admin/users?per_page=2&page=2");
    const second = await readJson(await get("/api/admin/users?per_page=2&page=2"));
    expect(second.meta).toMatchObject({ current_page: 2, from: 3 });
    const firstIds = first.data.map((u: { id: number }) => u.id);
    for (const user of second.data) expect(firstIds).not.toContain(user.id);
  });

  test("an unknown role or a bad page → 422 per field", async () => {
    const body = await expect422(await get("/api/admin/users?role=wizard&per_page=500"), [
      "per_page",
      "role",
    ]);
    expect(body.errors.role).toEqual(["The selected role is invalid."]);
    await expect422(await get(`/api/admin/users?search=${"x".repeat(256)}`), ["search"]);
  });

  test("users.view lists too; a vendor is refused", async () => {
    expect((await get("/api/admin/users", viewerToken)).status).toBe(200);
    const refused = await get("/api/admin/users", vendorToken);
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toEqual(FORBIDDEN);
  });
});

describe("PATCH /api/admin/users/:user", () => {
  test("renames and changes the role; the answer is the User JSON, and it sticks", async () => {
    const user = await createUser(t.ctx, { name: "Before" });
    const response = await patch(`/api/admin/users/${user.id}`, { name: "After", role: "vendor" });
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: user.id,
      name: "After",
      email: user.email,
      role: expect.objectContaining({ name: "vendor", permissions: ["versions.publish"] }),
    });
    expect((await readJson(await get(`/api/users/${user.id}`))).data).toEqual(data);
    // Only the role: the name stays.
    const only = await readJson(await patch(`/api/admin/users/${user.id}`, { role: "customer" }));
    expect(only.data).toMatchObject({ name: "After", role: { name: "customer", permissions: [] } });
  });

  test("an unknown role, an empty name or an unknown field → 422, and nothing changes", async () => {
    const user = await createUser(t.ctx, { name: "Stays" });
    const body = await expect422(await patch(`/api/admin/users/${user.id}`, { name: "", role: "wizard" }), [
      "name",
      "role",
    ]);
    expect(body.errors.role).toEqual(["The selected role is invalid."]);
    await expect422(await patch(`/api/admin/users/${user.id}`, { email: "x@example.com" }), ["email"]);
    await expect422(await patch(`/api/admin/users/${user.id}`, { role: 7 }), ["role"]);
    const [row] = await t.ctx.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.name).toBe("Stays");
    expect(row?.roleId).toBe(user.roleId);
  });

  test("an unknown user or an id that is none → 404", async () => {
    for (const id of ["999999", "abc", "1e3"]) {
      const response = await patch(`/api/admin/users/${id}`, { name: "x" });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "User not found." });
    }
  });

  test("users.view may not change anyone: 403, and nothing changes", async () => {
    const user = await createUser(t.ctx, { name: "Untouched" });
    const response = await patch(`/api/admin/users/${user.id}`, { role: "admin" }, viewerToken);
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(FORBIDDEN);
    expect((await readJson(await get(`/api/users/${user.id}`))).data.role.name).toBe("customer");
  });
});

describe("with an admin's dashboard session", () => {
  test("lists with the cookie; a change needs the session's CSRF token (419 without, nothing changed)", async () => {
    const sessionAdmin = await userWithPassword(t.ctx, "a long admin password", { role: "admin" });
    const session = await signIn(base, sessionAdmin.email, "a long admin password");
    const listed = await fetch(`${base}/api/admin/users?search=${encodeURIComponent(sessionAdmin.email)}`, {
      headers: { cookie: session.cookie },
    });
    expect(listed.status).toBe(200);
    expect((await readJson(listed)).data.map((u: { id: number }) => u.id)).toEqual([sessionAdmin.id]);

    const user = await createUser(t.ctx, { name: "Session Target" });
    const change = (headers: Record<string, string>) =>
      fetch(`${base}/api/admin/users/${user.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ role: "vendor" }),
      });
    const withoutToken = await change({ cookie: session.cookie, "sec-fetch-site": "same-origin" });
    expect(withoutToken.status).toBe(419);
    expect(await readJson(withoutToken)).toEqual({ message: "CSRF token mismatch." });
    expect((await readJson(await get(`/api/users/${user.id}`))).data.role.name).toBe("customer");

    const changed = await change(sessionHeaders(session));
    expect(changed.status).toBe(200);
    expect((await readJson(changed)).data.role.name).toBe("vendor");
  });
});

describe("the last admin", () => {
  // Its own database, so the admins counted are exactly the ones made here.
  let own: TestApp;
  let ownBase: string;
  beforeAll(async () => {
    own = await startTestApp();
    ownBase = own.listen();
  }, 60_000);
  afterAll(() => own.close());
  const change = (token: string, id: number, body: unknown) =>
    fetch(`${ownBase}/api/admin/users/${id}`, json(body, { method: "PATCH", token }));
  const roleOf = async (id: number, token: string) =>
    (await readJson(await fetch(`${ownBase}/api/users/${id}`, { headers: bearer(token) }))).data.role.name;

  test("cannot take away their own admin role; with a second admin they can", async () => {
    const only = await createUser(own.ctx, { role: "admin" });
    const token = await tokenFor(own.ctx, only);
    const refused = await change(token, only.id, { role: "vendor", name: "Still Me" });
    const body = await expect422(refused, ["role"]);
    expect(body).toEqual({ message: LAST_ADMIN, errors: { role: [LAST_ADMIN] } });
    expect(await roleOf(only.id, token)).toBe("admin");
    // Renaming themself and keeping the role is fine.
    expect((await change(token, only.id, { name: "Renamed", role: "admin" })).status).toBe(200);

    // Another role granting `*` is an admin role too.
    const root = await createRole(own.ctx, ["*"]);
    const second = await createUser(own.ctx, { role: root.name });
    const demoted = await change(token, only.id, { role: "vendor" });
    expect(demoted.status).toBe(200);
    expect((await readJson(demoted)).data.role.name).toBe("vendor");
    // Now the second is the last one.
    const secondToken = await tokenFor(own.ctx, second);
    await expect422(await change(secondToken, second.id, { role: "customer" }), ["role"]);
  });

  test("two admins demoting each other at once: one of them stays an admin", async () => {
    const a = await createUser(own.ctx, { role: "admin" });
    const b = await createUser(own.ctx, { role: "admin" });
    // Leave exactly these two (and the earlier test's second, made customer-proof by demoting it here).
    const earlier = await own.ctx.db.select({ id: users.id }).from(users);
    const aToken = await tokenFor(own.ctx, a);
    for (const { id } of earlier) {
      if (id !== a.id && id !== b.id) await change(aToken, id, { role: "customer" });
    }
    const bToken = await tokenFor(own.ctx, b);
    const [first, second] = await Promise.all([
      change(aToken, b.id, { role: "customer" }),
      change(bToken, a.id, { role: "customer" }),
    ]);
    const statuses = [first.status, second.status];
    // The loser either met the 422 or, if the winner's change came first, had lost admin already.
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.some((s) => s === 422 || s === 403)).toBe(true);
    const admins = await readJson(
      await fetch(`${ownBase}/api/admin/users?role=admin`, {
        headers: bearer(first.status === 200 ? aToken : bToken),
      }),
    );
    expect(admins.data).toHaveLength(1);
  });
});

describe("GET /api/admin/roles", () => {
  test("every role by name with its permissions and how many users have it", async () => {
    const lonely = await createRole(t.ctx, ["purchases.view", "users.view"]);
    const response = await get("/api/admin/roles");
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    const names = data.map((role: { name: string }) => role.name);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(["admin", "customer", "vendor", lonely.name]));
    expect(data.find((role: { name: string }) => role.name === lonely.name)).toEqual({
      id: lonely.id,
      name: lonely.name,
      permissions: ["purchases.view", "users.view"],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      users_count: 0,
    });
    const adminCount = (await readJson(await get("/api/admin/users?role=admin&per_page=100"))).data.length;
    expect(data.find((role: { name: string }) => role.name === "admin")).toMatchObject({
      permissions: ["*"],
      users_count: adminCount,
    });
  });

  test("users.view is not enough", async () => {
    const response = await get("/api/admin/roles", viewerToken);
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(FORBIDDEN);
  });
});

describe("GET /api/admin/api-keys", () => {
  test("newest first with the creator's name and last use, never the key", async () => {
    const creator = await createUser(t.ctx, { role: "vendor", name: "Key Creator" });
    const scoped = await apiKeyFor(t.ctx, creator.id);
    const global = await apiKeyFor(t.ctx);
    // Using the global key records its last use.
    const used = await fetch(`${base}/api/v1/licenses`, { headers: { "x-api-key": global.key } });
    expect(used.status).toBe(200);

    const response = await get("/api/admin/api-keys?per_page=100");
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(global.key);
    expect(text).not.toContain(scoped.key);
    const body = JSON.parse(text);
    const ids = body.data.map((key: { id: number }) => key.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(body.data.find((key: { id: number }) => key.id === global.id)).toEqual({
      id: global.id,
      name: "test",
      creator_id: null,
      creator_name: null,
      created_at: expect.stringMatching(ISO),
      last_used_at: expect.stringMatching(ISO),
    });
    expect(body.data.find((key: { id: number }) => key.id === scoped.id)).toEqual({
      id: scoped.id,
      name: "test",
      creator_id: creator.id,
      creator_name: "Key Creator",
      created_at: expect.stringMatching(ISO),
      last_used_at: null,
    });

    // A revoked key leaves the list.
    const revoked = await fetch(`${base}/api/admin/api-keys/${scoped.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(revoked.status).toBe(204);
    const after = await readJson(await get("/api/admin/api-keys?per_page=100"));
    expect(after.data.map((key: { id: number }) => key.id)).not.toContain(scoped.id);
  });

  test("a bad page → 422", async () => {
    await expect422(await get("/api/admin/api-keys?page=0"), ["page"]);
  });
});

describe("GET /api/products/:product/options", () => {
  test("the options, oldest first, each with its benefits", async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const product = await createProduct(t.ctx, vendor);
    const basic = await createOption(t.ctx, product, 9.5);
    const gold = await createOption(t.ctx, product, 49);
    const support = await createBenefit(t.ctx, gold);
    const source = await createBenefit(t.ctx, gold);
    // Another product's option does not leak in.
    await createOption(t.ctx, await createProduct(t.ctx, vendor));

    const customerToken = await tokenFor(t.ctx, await createUser(t.ctx));
    const response = await get(`/api/products/${product.id}/options`, customerToken);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({
      data: [
        { id: basic.id, name: basic.name, price: 9.5, benefits: [] },
        {
          id: gold.id,
          name: gold.name,
          price: 49,
          benefits: [
            { id: support.id, name: support.name },
            { id: source.id, name: source.name },
          ],
        },
      ],
    });
    const none = await createProduct(t.ctx, vendor);
    expect(await readJson(await get(`/api/products/${none.id}/options`))).toEqual({ data: [] });
  });

  test("an unlisted product: its owner and admins see it, anyone else gets the unknown product's 404", async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const product = await createProduct(t.ctx, vendor, { hidden: true });
    await createOption(t.ctx, product);
    expect((await get(`/api/products/${product.id}/options`, await tokenFor(t.ctx, vendor))).status).toBe(
      200,
    );
    expect((await get(`/api/products/${product.id}/options`)).status).toBe(200);
    for (const path of [
      `/api/products/${product.id}/options`,
      "/api/products/999999/options",
      "/api/products/x/options",
    ]) {
      const response = await get(path, vendorToken);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Product not found." });
    }
  });
});

describe("GET /api/purchases?details=1", () => {
  test("adds the product, option and buyer; without it the purchase is the interface's", async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const buyer = await createUser(t.ctx, { name: "Bea Buyer" });
    const product = await createProduct(t.ctx, vendor, { name: "Detailed" });
    const option = await createOption(t.ctx, product);
    const withOption = await createPurchase(t.ctx, buyer, product, { option_id: option.id });
    const bare = await createPurchase(t.ctx, buyer, product);

    const detailed = await readJson(await get(`/api/purchases?user_id=${buyer.id}&details=1`));
    expect(detailed.data.map((p: { id: number }) => p.id)).toEqual([bare.id, withOption.id]);
    const [first, second] = detailed.data;
    expect(first).toMatchObject({
      id: bare.id,
      product: { id: product.id, name: "Detailed" },
      option: null,
      buyer: { id: buyer.id, name: "Bea Buyer", email: buyer.email },
    });
    expect(second).toMatchObject({ option: { id: option.id, name: option.name }, formatted_price: "$19.99" });
    // The link to the next page keeps asking for details.
    const paged = await readJson(await get(`/api/purchases?user_id=${buyer.id}&details=1&per_page=1`));
    expect(paged.links.next).toContain("details=1");

    const plain = await readJson(await get(`/api/purchases?user_id=${buyer.id}`));
    for (const purchase of plain.data) {
      expect(Object.keys(purchase)).not.toContain("product");
      expect(Object.keys(purchase)).not.toContain("buyer");
      expect(Object.keys(purchase)).not.toContain("option");
    }
    // The buyer sees their own purchases with details; a stranger sees none of them.
    const mine = await readJson(await get("/api/purchases?details=1", await tokenFor(t.ctx, buyer)));
    expect(mine.data.map((p: { buyer: { id: number } }) => p.buyer.id)).toEqual([buyer.id, buyer.id]);
    const stranger = await readJson(
      await get("/api/purchases?details=1", await tokenFor(t.ctx, await createUser(t.ctx))),
    );
    expect(stranger.data).toEqual([]);
  });

  test("details other than 0 or 1 → 422", async () => {
    const body = await expect422(await get("/api/purchases?details=yes"), ["details"]);
    expect(body.errors.details).toEqual(["The details field must be 0 or 1."]);
  });
});

describe("POST /api/admin/users/:user/password-link without SMTP", () => {
  test("says the link was not e-mailed", async () => {
    const user = await createUser(t.ctx);
    const response = await fetch(`${base}/api/admin/users/${user.id}/password-link`, {
      method: "POST",
      headers: bearer(adminToken),
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toEqual({
      url: expect.stringMatching(/^http:\/\/depot\.test\/set-password\?token=/),
      expires_at: expect.stringMatching(ISO),
      emailed: false,
    });
  });
});
