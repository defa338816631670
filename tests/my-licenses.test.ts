import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

// GET /api/licenses: a signed-in user's own licenses (the dashboard's Licenses page), over a real
// socket and database, with the session cookie or a bearer token.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let w: Awaited<ReturnType<typeof licenseWorld>>;
let owner: Awaited<ReturnType<typeof userWithPassword>>;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  owner = await userWithPassword(t.ctx, PASSWORD);
  w = { ...(await licenseWorld(t.ctx)), owner };
  session = await signIn(base, owner.email, PASSWORD);
}, 60_000);
afterAll(() => t.close());

const listWithSession = (query = "") =>
  fetch(`${base}/api/licenses${query}`, { headers: { cookie: session.cookie } });

async function validateFrom(key: string, ip: string) {
  const response = await fetch(`${base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": w.globalKey },
    body: JSON.stringify({ key, ip }),
  });
  expect((await readJson(response)).code).toBe("VALID");
}

describe("GET /api/licenses", () => {
  test("the owner's licenses, newest first, each with product, status, addresses and resets left", async () => {
    const older = await licenseIn(t, w, { maxIps: 2 });
    const newer = await licenseIn(t, w, {
      productId: String(w.productB.id),
      creatorId: String(w.creatorB.id),
    });
    // Someone else's license never shows.
    const stranger = await createUser(t.ctx);
    await licenseIn(t, { ...w, owner: stranger });
    await validateFrom(older.key, "203.0.113.7");
    await validateFrom(older.key, "2001:db8::1");

    const response = await listWithSession();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    expect(body.data.map((l: { id: string }) => l.id)).toEqual([newer.id, older.id]);
    expect(body.data[1]).toEqual({
      id: older.id,
      key: older.key,
      product: { id: w.productA.id, name: w.productA.name },
      expires: null,
      revoked: false,
      status: "active",
      max_ips: 2,
      ips: [
        {
          ip: "203.0.113.7",
          first_seen_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
        },
        {
          ip: "2001:db8::1",
          first_seen_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
        },
      ],
      ip_resets_left: 3,
      max_machines: null,
      machines: [],
      created_at: expect.stringMatching(ISO),
    });
    expect(body.data[0].product).toEqual({ id: w.productB.id, name: w.productB.name });
    expect(body.data[0].ips).toEqual([]);
    expect(body.links).toEqual({
      first: "http://depot.test/api/licenses?page=1",
      last: null,
      prev: null,
      next: null,
    });
    expect(body.meta).toEqual({
      current_page: 1,
      from: 1,
      path: "http://depot.test/api/licenses",
      per_page: 15,
      to: 2,
    });

    // The same list with the owner's bearer token.
    const withToken = await fetch(`${base}/api/licenses`, { headers: bearer(await tokenFor(t.ctx, owner)) });
    expect(withToken.status).toBe(200);
    expect((await readJson(withToken)).data).toEqual(body.data);
  }, 30_000);

  test("a reset forgets the addresses and counts against today's three", async () => {
    const license = await licenseIn(t, w);
    await validateFrom(license.key, "198.51.100.4");
    const find = async () =>
      (await readJson(await listWithSession("?per_page=100"))).data.find(
        (l: { id: string }) => l.id === license.id,
      );
    expect((await find()).ips.map((ip: { ip: string }) => ip.ip)).toEqual(["198.51.100.4"]);

    const reset = () =>
      fetch(`${base}/api/licenses/${license.id}/ips`, {
        method: "DELETE",
        headers: { cookie: session.cookie, "x-csrf-token": session.csrf, "sec-fetch-site": "same-origin" },
      });
    expect((await reset()).status).toBe(204);
    expect(await find()).toMatchObject({ ips: [], ip_resets_left: 2 });
    // Another license's count is its own.
    expect(
      (await readJson(await listWithSession("?per_page=100"))).data.filter(
        (l: { ip_resets_left: number }) => l.ip_resets_left !== 3,
      ),
    ).toHaveLength(1);

    expect((await reset()).status).toBe(204);
    expect((await reset()).status).toBe(204);
    expect((await find()).ip_resets_left).toBe(0);
    // The fourth in 24 hours is refused, and the count stays at none left.
    await validateFrom(license.key, "198.51.100.5");
    const refused = await reset();
    expect(refused.status).toBe(429);
    expect(await readJson(refused)).toEqual({ message: "Too Many Attempts." });
    expect(await find()).toMatchObject({
      ip_resets_left: 0,
      ips: [expect.objectContaining({ ip: "198.51.100.5" })],
    });
  }, 30_000);

  test("expired and revoked licenses say so; a deleted product's license keeps its name", async () => {
    const expired = await licenseIn(t, w, { expires: "2020-01-01T00:00:00Z" });
    const revoked = await licenseIn(t, w);
    const revoke = await fetch(`${base}/api/v1/licenses/${revoked.id}`, {
      method: "DELETE",
      headers: { "x-api-key": w.globalKey },
    });
    expect(revoke.status).toBe(204);
    const gone = await createProduct(t.ctx, w.creatorA, { name: "Discontinued" });
    const orphan = await licenseIn(t, w, { productId: String(gone.id) });
    const admin = await createUser(t.ctx, { role: "admin" });
    const deleted = await fetch(`${base}/api/admin/products/${gone.id}`, {
      method: "DELETE",
      headers: bearer(await tokenFor(t.ctx, admin)),
    });
    expect(deleted.status).toBe(204);

    const { data } = await readJson(await listWithSession("?per_page=100"));
    const byId = (id: string) => data.find((l: { id: string }) => l.id === id);
    expect(byId(expired.id)).toMatchObject({
      expires: "2020-01-01T00:00:00.000Z",
      revoked: false,
      status: "expired",
    });
    expect(byId(revoked.id)).toMatchObject({ expires: null, revoked: true, status: "revoked" });
    expect(byId(orphan.id)).toMatchObject({
      product: { id: gone.id, name: "Discontinued" },
      status: "active",
    });
  }, 30_000);

  test("simple pagination: per_page 1 links the next page", async () => {
    const first = await readJson(await listWithSession("?per_page=1"));
    expect(first.data).toHaveLength(1);
    expect(first.links.next).toBe("http://depot.test/api/licenses?per_page=1&page=2");
    const second = await readJson(await listWithSession("?per_page=1&page=2"));
    expect(second.data).toHaveLength(1);
    expect(second.data[0].id).not.toBe(first.data[0].id);
  }, 30_000);

  test("a user without licenses gets an empty list", async () => {
    const nobody = await createUser(t.ctx);
    const response = await fetch(`${base}/api/licenses`, { headers: bearer(await tokenFor(t.ctx, nobody)) });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data).toEqual([]);
  }, 30_000);

  test("bad paging is a 422 on its field; no credentials, a bad token or a dead session is a 401", async () => {
    const invalid = await listWithSession("?per_page=abc&page=0");
    expect(invalid.status).toBe(422);
    expect(await readJson(invalid)).toEqual({
      message: "The page field must be an integer of at least 1. (and 1 more error)",
      errors: {
        page: ["The page field must be an integer of at least 1."],
        per_page: ["The per page field must be an integer between 1 and 100."],
      },
    });
    const refused: Record<string, string>[] = [
      {},
      bearer("garbled"),
      { cookie: "depot_session=not-a-session" },
    ];
    for (const headers of refused) {
      const response = await fetch(`${base}/api/licenses`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  }, 30_000);
});
