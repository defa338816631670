import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { products, sessions } from "../src/db/schema/index.ts";
import { sha256Hex } from "../src/features/auth/secrets.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type createUser, tokenFor } from "./helpers/factories.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

// The JSON API with the dashboard's session cookie instead of a bearer token (Sanctum's SPA mode),
// over a real socket and database.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
let admin: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  admin = await userWithPassword(t.ctx, PASSWORD, { role: "admin" });
  customer = await userWithPassword(t.ctx, PASSWORD);
}, 60_000);
afterAll(() => t.close());

const FORBIDDEN = { message: "This action is unauthorized." };
const CROSS_SITE = { message: "Cross-site request refused." };
const CSRF_MISMATCH = { message: "CSRF token mismatch." };
const UNAUTHENTICATED = { message: "Unauthenticated." };

let productSerial = 0;
/** POST /api/admin/products with `headers`; the product's name, to look for it afterwards. */
async function createProductWith(headers: Record<string, string>) {
  const name = `Session product ${++productSerial}`;
  const response = await fetch(`${base}/api/admin/products`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ name, user_id: admin.id }),
  });
  return { response, name };
}
const productsNamed = async (name: string) =>
  (await t.ctx.db.select({ id: products.id }).from(products).where(eq(products.name, name))).length;

describe("reading with a session", () => {
  test("GET /api/users/{self}: the user, as with a token; no CSRF token needed to read", async () => {
    const { cookie } = await signIn(base, customer.email, PASSWORD);
    const response = await fetch(`${base}/api/users/${customer.id}`, {
      headers: { cookie, origin: "https://evil.example" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({
      data: {
        id: customer.id,
        name: customer.name,
        email: customer.email,
        role: expect.objectContaining({ name: "customer", permissions: [] }),
      },
    });
  }, 30_000);

  test("the session carries the role's permissions: a customer may not read the admin", async () => {
    const { cookie } = await signIn(base, customer.email, PASSWORD);
    const response = await fetch(`${base}/api/users/${admin.id}`, { headers: { cookie } });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(FORBIDDEN);
  }, 30_000);
});

describe("changing with a session", () => {
  test("with the X-CSRF-Token from sign-in: 201, as with a token", async () => {
    const { cookie, csrf } = await signIn(base, admin.email, PASSWORD);
    const { response, name } = await createProductWith({
      cookie,
      "x-csrf-token": csrf,
      origin: "http://depot.test",
      "sec-fetch-site": "same-origin",
    });
    expect(response.status).toBe(201);
    const body = await readJson(response);
    expect(body.data).toMatchObject({ name, user_id: admin.id });
    expect(await productsNamed(name)).toBe(1);
  }, 30_000);

  test("a page opened at the address the request went to (not APP_URL's) is still our own: 201", async () => {
    const { cookie, csrf } = await signIn(base, admin.email, PASSWORD, { origin: new URL(base).origin });
    const { response } = await createProductWith({
      cookie,
      "x-csrf-token": csrf,
      origin: new URL(base).origin,
      "sec-fetch-site": "same-origin",
    });
    expect(response.status).toBe(201);
  }, 30_000);

  test.each([
    ["Origin of another site", { origin: "https://evil.example" }],
    ["Origin of our host on another scheme", { origin: "https://depot.test" }],
    ["Sec-Fetch-Site: cross-site", { "sec-fetch-site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "sec-fetch-site": "same-site" }],
  ])(
    "%s: 403 and nothing changed, even with the right CSRF token",
    async (_, headers) => {
      const { cookie, csrf } = await signIn(base, admin.email, PASSWORD);
      const { response, name } = await createProductWith({ cookie, "x-csrf-token": csrf, ...headers });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await readJson(response)).toEqual(CROSS_SITE);
      expect(await productsNamed(name)).toBe(0);
    },
    30_000,
  );

  test.each([
    ["no X-CSRF-Token", null],
    ["an empty one", ""],
    ["a wrong one", "not-the-token"],
  ])(
    "%s: 419 and nothing changed",
    async (_, token) => {
      const { cookie } = await signIn(base, admin.email, PASSWORD);
      const { response, name } = await createProductWith({
        cookie,
        ...(token === null ? {} : { "x-csrf-token": token }),
      });
      expect(response.status).toBe(419);
      expect(await readJson(response)).toEqual(CSRF_MISMATCH);
      expect(await productsNamed(name)).toBe(0);
    },
    30_000,
  );

  test("another session's CSRF token is not this one's", async () => {
    const mine = await signIn(base, admin.email, PASSWORD);
    const other = await signIn(base, admin.email, PASSWORD);
    const { response } = await createProductWith({ cookie: mine.cookie, "x-csrf-token": other.csrf });
    expect(response.status).toBe(419);
  }, 30_000);

  test("a customer's session is refused an admin route: 403", async () => {
    const { cookie, csrf } = await signIn(base, customer.email, PASSWORD);
    const { response, name } = await createProductWith({ cookie, "x-csrf-token": csrf });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(FORBIDDEN);
    expect(await productsNamed(name)).toBe(0);
  }, 30_000);
});

describe("bearer tokens are unchanged and win over the cookie", () => {
  test("a bearer request needs no CSRF token, whatever cookie it carries", async () => {
    const { cookie } = await signIn(base, customer.email, PASSWORD);
    const { response } = await createProductWith({ ...bearer(await tokenFor(t.ctx, admin)), cookie });
    expect(response.status).toBe(201);
  }, 30_000);

  test("the customer's token with the admin's session cookie is the customer: 403", async () => {
    const { cookie, csrf } = await signIn(base, admin.email, PASSWORD);
    const { response } = await createProductWith({
      ...bearer(await tokenFor(t.ctx, customer)),
      cookie,
      "x-csrf-token": csrf,
    });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(FORBIDDEN);
  }, 30_000);

  test("a bad Authorization header is 401 even beside a good session cookie", async () => {
    const { cookie } = await signIn(base, admin.email, PASSWORD);
    for (const authorization of ["Bearer 999|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Basic YTpi"]) {
      const response = await fetch(`${base}/api/users/${admin.id}`, { headers: { authorization, cookie } });
      expect({ authorization, status: response.status }).toEqual({ authorization, status: 401 });
      expect(await readJson(response)).toEqual(UNAUTHENTICATED);
    }
  }, 30_000);
});

describe("ended sessions", () => {
  test("after sign-out-everywhere an older cookie is 401 on the API", async () => {
    const old = await signIn(base, admin.email, PASSWORD);
    const current = await signIn(base, admin.email, PASSWORD);
    expect((await fetch(`${base}/api/users/${admin.id}`, { headers: { cookie: old.cookie } })).status).toBe(
      200,
    );
    const out = await fetch(`${base}/api/auth/sign-out-everywhere`, {
      method: "POST",
      headers: { cookie: current.cookie, "x-csrf-token": current.csrf },
    });
    expect(out.status).toBe(204);
    for (const { cookie, csrf } of [old, current]) {
      const read = await fetch(`${base}/api/users/${admin.id}`, { headers: { cookie } });
      expect(read.status).toBe(401);
      expect(read.headers.get("www-authenticate")).toBe("Bearer");
      expect(await readJson(read)).toEqual(UNAUTHENTICATED);
      const { response } = await createProductWith({ cookie, "x-csrf-token": csrf });
      expect(response.status).toBe(401);
    }
  }, 30_000);

  test("an expired session is 401 on the API", async () => {
    const { cookie } = await signIn(base, customer.email, PASSWORD);
    await t.ctx.db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.id, sha256Hex(cookie.split("=")[1] ?? "")));
    const response = await fetch(`${base}/api/users/${customer.id}`, { headers: { cookie } });
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual(UNAUTHENTICATED);
  }, 30_000);

  test("deleting the user ends their sessions (the rows cascade)", async () => {
    const doomed = await userWithPassword(t.ctx, PASSWORD);
    const { cookie } = await signIn(base, doomed.email, PASSWORD);
    await t.ctx.db.execute(sql`delete from users where id = ${doomed.id}`);
    const response = await fetch(`${base}/api/users/${doomed.id}`, { headers: { cookie } });
    expect(response.status).toBe(401);
  }, 30_000);
});
