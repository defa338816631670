import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { personalAccessTokens } from "../src/db/schema/index.ts";
import { apiKeyAuth } from "../src/features/auth/guards.ts";
import { errorRenderer } from "../src/http/error-renderer.ts";
import { createLogger } from "../src/log.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createUser, tokenFor } from "./helpers/factories.ts";

let t: TestApp;
let admin: { id: number };
let adminToken: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await createUser(t.ctx, { role: "admin" });
  adminToken = await tokenFor(t.ctx, admin);
});
afterAll(() => t.close());

const getUser = (id: number | string, token?: string) =>
  t.request(`/api/users/${id}`, { headers: token ? bearer(token) : {} });

describe("bearer personal access tokens", () => {
  test("a valid token authenticates and records last_used_at", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    expect(token).toMatch(/^\d+\|[A-Za-z0-9_-]{40}$/);

    const response = await getUser(user.id, token);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    expect(body.data).toMatchObject({
      id: user.id,
      email: user.email,
      role: { name: "customer", permissions: [] },
    });

    const id = Number(token.split("|")[0]);
    const [row] = await t.ctx.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, id));
    expect(row?.lastUsedAt).toBeInstanceOf(Date);
    // Only a hash is stored, never the secret.
    expect(row?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.tokenHash).not.toContain(token.split("|")[1] ?? "");
  });

  test.each([
    ["missing", undefined],
    ["garbled", "not-a-token"],
    ["unknown id", "999999|abcdefghijklmnopqrstuvwxyz0123456789ABCD"],
    ["SQL in it", "1|' OR 1=1 --aaaaaaaaaaaaaaaaaaaaaaaa"],
  ])("%s token → 401 Unauthenticated.", async (_, token) => {
    const response = await getUser(admin.id, token);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
  });

  test("the scheme is case-insensitive (RFC 9110): bearer, BEARER, BeArEr work over a real socket", async () => {
    const base = t.listen();
    for (const scheme of ["Bearer", "bearer", "BEARER", "BeArEr"]) {
      const response = await fetch(`${base}/api/users/${admin.id}`, {
        headers: { authorization: `${scheme} ${adminToken}` },
      });
      expect({ scheme, status: response.status }).toEqual({ scheme, status: 200 });
      expect((await readJson(response)).data.id).toBe(admin.id);
    }
    for (const header of [`Basic ${adminToken}`, `Bearer${adminToken}`, `bearerx ${adminToken}`]) {
      const response = await fetch(`${base}/api/users/${admin.id}`, { headers: { authorization: header } });
      expect({ header, status: response.status }).toEqual({ header, status: 401 });
    }
  });

  test("only the Authorization header carries a token: ?access_token= never does (URLs end up in logs)", async () => {
    const base = t.listen();
    const url = `${base}/api/users/${admin.id}?access_token=${encodeURIComponent(adminToken)}`;
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: "Basic dXNlcjpwYXNz" },
      { authorization: "Token x" },
    ];
    for (const headers of headerSets) {
      const response = await fetch(url, { headers });
      expect({ headers, status: response.status }).toEqual({ headers, status: 401 });
      expect(await readJson(response)).toEqual({ message: "Unauthenticated." });
    }
  });

  test("the right id with a wrong secret → 401", async () => {
    const [id] = adminToken.split("|");
    const response = await getUser(admin.id, `${id}|${"x".repeat(40)}`);
    expect(response.status).toBe(401);
  });

  test("a revoked token stops working at once", async () => {
    const user = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, user);
    expect((await getUser(user.id, token)).status).toBe(200);

    const revoke = await t.request(`/api/admin/tokens/${token.split("|")[0]}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(revoke.status).toBe(204);
    expect((await getUser(user.id, token)).status).toBe(401);

    const again = await t.request(`/api/admin/tokens/${token.split("|")[0]}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(again.status).toBe(404);
    expect(await readJson(again)).toEqual({ message: "Token not found." });
  });

  test("abilities narrow an admin's token: role ∩ token", async () => {
    const ciToken = await tokenFor(t.ctx, admin, ["versions.publish"]);
    const forbidden = await t.request(
      "/api/admin/users",
      json({ name: "X", email: "x@example.com" }, { token: ciToken }),
    );
    expect(forbidden.status).toBe(403);
    expect(await readJson(forbidden)).toEqual({ message: "This action is unauthorized." });
    // …and reading another user needs users.view, which this token lacks.
    const other = await createUser(t.ctx);
    expect((await getUser(other.id, ciToken)).status).toBe(403);
  });

  test("a token cannot grant more than its role: a vendor's `*` token is still a vendor", async () => {
    const vendor = await createUser(t.ctx, { role: "vendor" });
    const token = await tokenFor(t.ctx, vendor, ["*"]);
    const response = await t.request(
      "/api/admin/users",
      json({ name: "X", email: "y@example.com" }, { token }),
    );
    expect(response.status).toBe(403);
  });
});

describe("GET /api/users/{user}", () => {
  test("self → 200 with the role object typed as the API documents it", async () => {
    const response = await getUser(admin.id, adminToken);
    const { data } = await readJson(response);
    expect(typeof data.id).toBe("number");
    expect(typeof data.name).toBe("string");
    expect(typeof data.email).toBe("string");
    expect(data.role).toEqual({
      id: expect.any(Number),
      name: "admin",
      permissions: ["*"],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  test("another user without users.view → 403; with it (admin) → 200; unknown → 404", async () => {
    const customer = await createUser(t.ctx);
    const customerToken = await tokenFor(t.ctx, customer);
    expect((await getUser(admin.id, customerToken)).status).toBe(403);
    expect((await getUser(customer.id, adminToken)).status).toBe(200);
    const missing = await getUser(987654, adminToken);
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toEqual({ message: "User not found." });
  });

  test.each(["abc", "-1", "1e3", "0x10", "0", "1.5", "9".repeat(40), "%20"])(
    "id %p → 404 JSON, never 500",
    async (id) => {
      const response = await getUser(id, adminToken);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "User not found." });
    },
  );
});

describe("admin: users, tokens, API keys", () => {
  test("POST /api/admin/users → 201 with the user; the e-mail is unique regardless of case", async () => {
    const created = await t.request(
      "/api/admin/users",
      json({ name: "Vera Vendor", email: "Vera@Example.com", role: "vendor" }, { token: adminToken }),
    );
    expect(created.status).toBe(201);
    const { data } = await readJson(created);
    expect(data).toMatchObject({
      name: "Vera Vendor",
      email: "Vera@Example.com",
      role: { name: "vendor", permissions: ["versions.publish"] },
    });

    const duplicate = await t.request(
      "/api/admin/users",
      json({ name: "Other", email: "vera@example.com" }, { token: adminToken }),
    );
    expect(duplicate.status).toBe(422);
    expect(await readJson(duplicate)).toEqual({
      message: "The email has already been taken.",
      errors: { email: ["The email has already been taken."] },
    });
  });

  test("a token made over HTTP is shown once and works", async () => {
    const user = await createUser(t.ctx);
    const response = await t.request(
      `/api/admin/users/${user.id}/tokens`,
      json({ name: "ci", abilities: ["versions.publish"] }, { token: adminToken }),
    );
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.any(Number),
      name: "ci",
      abilities: ["versions.publish"],
      token: expect.stringMatching(/^\d+\|/),
    });
    expect((await getUser(user.id, data.token)).status).toBe(200);

    const unknownAbility = await t.request(
      `/api/admin/users/${user.id}/tokens`,
      json({ name: "ci", abilities: ["root"] }, { token: adminToken }),
    );
    expect(unknownAbility.status).toBe(422);
    expect((await readJson(unknownAbility)).errors).toHaveProperty(["abilities.0"]);

    const unknownUser = await t.request(
      "/api/admin/users/424242/tokens",
      json({ name: "ci" }, { token: adminToken }),
    );
    expect(unknownUser.status).toBe(404);
  });

  test("API keys: creator must exist; the key is returned once and only its hash is kept", async () => {
    const creator = await createUser(t.ctx, { role: "vendor" });
    const response = await t.request(
      "/api/admin/api-keys",
      json({ name: "shop", creator_id: creator.id }, { token: adminToken }),
    );
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.any(Number),
      name: "shop",
      creator_id: creator.id,
      key: expect.stringMatching(/^dpk_/),
    });

    for (const creator_id of [999999, "abc", 2 ** 60]) {
      const bad = await t.request(
        "/api/admin/api-keys",
        json({ name: "x", creator_id }, { token: adminToken }),
      );
      expect(bad.status).toBe(422);
      expect((await readJson(bad)).errors).toHaveProperty("creator_id");
    }
  });
});

describe("x-api-key", () => {
  // The license routes arrive with their issue; the plugin is exercised here on a probe route.
  const probe = () =>
    new Elysia()
      .use(errorRenderer({ log: createLogger("silent"), allowedMethods: () => [] }))
      .use(apiKeyAuth(t.ctx))
      .get("/probe", ({ apiKey }) => apiKey, { apiKey: true });
  const call = (key?: string) =>
    probe().handle(new Request("http://localhost/probe", { headers: key ? { "x-api-key": key } : {} }));

  test("a valid key identifies itself and its creator", async () => {
    const creator = await createUser(t.ctx);
    const key = await apiKeyFor(t.ctx, creator.id);
    const response = await call(key.key);
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ id: key.id, creatorId: creator.id });
  });

  test.each([
    ["missing", undefined],
    ["wrong", "dpk_nope"],
    ["huge", "k".repeat(5000)],
  ])("%s key → 401 Invalid API key.", async (_, key) => {
    const response = await call(key);
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({ message: "Invalid API key." });
  });

  test("a deleted key is refused", async () => {
    const key = await apiKeyFor(t.ctx);
    expect((await call(key.key)).status).toBe(200);
    const deleted = await t.request(`/api/admin/api-keys/${key.id}`, {
      method: "DELETE",
      headers: bearer(adminToken),
    });
    expect(deleted.status).toBe(204);
    expect((await call(key.key)).status).toBe(401);
  });
});
