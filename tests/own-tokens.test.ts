import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { personalAccessTokens } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type createUser, tokenFor } from "./helpers/factories.ts";
import { signIn, userWithPassword } from "./helpers/sessions.ts";

// Self-service personal access tokens (/api/tokens) over a real socket and database: made and
// revoked with the dashboard's session (and its CSRF token), listed with either credential.
let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
let vendor: Awaited<ReturnType<typeof createUser>>;
let other: Awaited<ReturnType<typeof createUser>>;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  vendor = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  other = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  session = await signIn(base, vendor.email, PASSWORD);
}, 60_000);
afterAll(() => t.close());

const DASHBOARD_ONLY = { message: "Personal access tokens are managed in the dashboard." };
const UNAUTHENTICATED = { message: "Unauthenticated." };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A same-origin JSON request with `who`'s session cookie and CSRF token (a dashboard page's fetch). */
const withSession = (who: { cookie: string; csrf: string }, method: string, body?: unknown): RequestInit => ({
  method,
  headers: {
    cookie: who.cookie,
    "x-csrf-token": who.csrf,
    "sec-fetch-site": "same-origin",
    ...(body === undefined ? {} : { "content-type": "application/json" }),
  },
  body: body === undefined ? undefined : JSON.stringify(body),
});

async function createWithSession(body: unknown, who = session) {
  return fetch(`${base}/api/tokens`, withSession(who, "POST", body));
}
const tokenRows = async (userId: number) =>
  t.ctx.db.select().from(personalAccessTokens).where(eq(personalAccessTokens.userId, userId));

describe("POST /api/tokens", () => {
  test("with a session and its CSRF token: 201, the plain-text token once, and it works as a bearer", async () => {
    const response = await createWithSession({ name: "CI publish", abilities: ["versions.publish"] });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.any(Number),
      name: "CI publish",
      abilities: ["versions.publish"],
      token: expect.stringMatching(/^\d+\|[A-Za-z0-9_-]{20,}$/),
    });
    expect(data.token.startsWith(`${data.id}|`)).toBe(true);
    // Only the hash is kept.
    const [row] = (await tokenRows(vendor.id)).filter((r) => r.id === data.id);
    expect(row?.tokenHash).not.toContain(data.token.split("|")[1]);

    const me = await fetch(`${base}/api/users/${vendor.id}`, { headers: bearer(data.token) });
    expect(me.status).toBe(200);
    expect((await readJson(me)).data.id).toBe(vendor.id);
  }, 30_000);

  test("without abilities: ['*'], all of the role's", async () => {
    const response = await createWithSession({ name: "everything" });
    expect(response.status).toBe(201);
    expect((await readJson(response)).data.abilities).toEqual(["*"]);
  }, 30_000);

  test("abilities are narrowed by the role: a vendor's users.view token cannot read another user", async () => {
    const response = await createWithSession({ name: "wider", abilities: ["users.view"] });
    const { data } = await readJson(response);
    const read = await fetch(`${base}/api/users/${other.id}`, { headers: bearer(data.token) });
    expect(read.status).toBe(403);
  }, 30_000);

  test("no X-CSRF-Token: 419 and no token made", async () => {
    const before = (await tokenRows(vendor.id)).length;
    const response = await fetch(`${base}/api/tokens`, {
      method: "POST",
      headers: { cookie: session.cookie, "content-type": "application/json" },
      body: JSON.stringify({ name: "no csrf" }),
    });
    expect(response.status).toBe(419);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "CSRF token mismatch." });
    expect((await tokenRows(vendor.id)).length).toBe(before);
  }, 30_000);

  test("from another site: 403 and no token made", async () => {
    const before = (await tokenRows(vendor.id)).length;
    const init = withSession(session, "POST", { name: "cross" });
    const response = await fetch(`${base}/api/tokens`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "sec-fetch-site": "cross-site" },
    });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual({ message: "Cross-site request refused." });
    expect((await tokenRows(vendor.id)).length).toBe(before);
  }, 30_000);

  test("with a bearer token, even an all-powerful one: 403 with why, before the body is looked at", async () => {
    const token = await tokenFor(t.ctx, vendor);
    const before = (await tokenRows(vendor.id)).length;
    for (const body of [{ name: "minted", abilities: ["*"] }, { nonsense: true }]) {
      const response = await fetch(`${base}/api/tokens`, {
        method: "POST",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(await readJson(response)).toEqual(DASHBOARD_ONLY);
    }
    expect((await tokenRows(vendor.id)).length).toBe(before);
  }, 30_000);

  test("without credentials: 401", async () => {
    const response = await fetch(`${base}/api/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "anon" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(await readJson(response)).toEqual(UNAUTHENTICATED);
  }, 30_000);

  test.each([
    ["an unknown ability", { name: "x", abilities: ["root"] }, "abilities.0"],
    ["a second ability unknown", { name: "x", abilities: ["versions.publish", "admin"] }, "abilities.1"],
    ["an empty name", { name: "", abilities: [] }, "name"],
    ["no name", { abilities: ["versions.publish"] }, "name"],
    ["a name too long", { name: "n".repeat(256) }, "name"],
    ["abilities not a list", { name: "x", abilities: "versions.publish" }, "abilities"],
    ["an unknown field", { name: "x", user_id: 1 }, "user_id"],
  ])(
    "%s: 422 naming the field",
    async (_, body, field) => {
      const response = await createWithSession(body);
      expect(response.status).toBe(422);
      expect(response.headers.get("content-type")).toContain("application/json");
      const json = await readJson(response);
      expect(json.message).toEqual(expect.any(String));
      expect(Object.keys(json.errors)).toContain(field);
      expect(json.errors[field]).toEqual([expect.any(String)]);
    },
    30_000,
  );

  test("a body that is not JSON: 4xx JSON, not 500", async () => {
    const init = withSession(session, "POST");
    const response = await fetch(`${base}/api/tokens`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect((await readJson(response)).message).toEqual(expect.any(String));
  }, 30_000);
});

describe("GET /api/tokens", () => {
  test("the caller's own tokens, newest first, without secrets; with a session or a bearer token", async () => {
    const mine = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
    const mySession = await signIn(base, mine.email, PASSWORD);
    const first = (await readJson(await createWithSession({ name: "first" }, mySession))).data;
    const second = (
      await readJson(await createWithSession({ name: "second", abilities: ["versions.publish"] }, mySession))
    ).data;
    await tokenFor(t.ctx, other); // someone else's: never listed

    const bySession = await fetch(`${base}/api/tokens`, { headers: { cookie: mySession.cookie } });
    expect(bySession.status).toBe(200);
    expect(bySession.headers.get("content-type")).toContain("application/json");
    const page = await readJson(bySession);
    expect(page.data).toEqual([
      {
        id: second.id,
        name: "second",
        abilities: ["versions.publish"],
        last_used_at: null,
        created_at: expect.stringMatching(ISO),
      },
      {
        id: first.id,
        name: "first",
        abilities: ["*"],
        last_used_at: null,
        created_at: expect.stringMatching(ISO),
      },
    ]);
    expect(JSON.stringify(page)).not.toContain(second.token.split("|")[1]);
    expect(page.meta).toEqual({
      current_page: 1,
      from: 1,
      path: "http://depot.test/api/tokens",
      per_page: 15,
      to: 2,
    });
    expect(page.links).toEqual({
      first: "http://depot.test/api/tokens?page=1",
      last: null,
      prev: null,
      next: null,
    });

    // Using a token records when, to the minute; listing with it counts as a use.
    const byBearer = await fetch(`${base}/api/tokens`, { headers: bearer(second.token) });
    expect(byBearer.status).toBe(200);
    const listed = (await readJson(byBearer)).data;
    expect(listed.map((row: { id: number }) => row.id)).toEqual([second.id, first.id]);
    expect(listed[0].last_used_at).toMatch(ISO);
    expect(Date.now() - Date.parse(listed[0].last_used_at)).toBeLessThan(60_000);
    expect(listed[1].last_used_at).toBeNull();
  }, 30_000);

  test("paginated: per_page=1 links to the next page; a bad page is 422", async () => {
    const response = await fetch(`${base}/api/tokens?per_page=1`, { headers: { cookie: session.cookie } });
    const page = await readJson(response);
    expect(page.data).toHaveLength(1);
    expect(page.links.next).toBe("http://depot.test/api/tokens?per_page=1&page=2");

    const bad = await fetch(`${base}/api/tokens?page=0`, { headers: { cookie: session.cookie } });
    expect(bad.status).toBe(422);
    expect(await readJson(bad)).toEqual({
      message: "The page field must be an integer of at least 1.",
      errors: { page: ["The page field must be an integer of at least 1."] },
    });
  }, 30_000);

  test("without credentials: 401", async () => {
    const response = await fetch(`${base}/api/tokens`);
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual(UNAUTHENTICATED);
  }, 30_000);
});

describe("DELETE /api/tokens/{id}", () => {
  const madeToken = async (who = session) =>
    (await readJson(await createWithSession({ name: "doomed", abilities: ["versions.publish"] }, who))).data;

  test("with the session: 204, gone from the list, and the token answers 401", async () => {
    const made = await madeToken();
    expect((await fetch(`${base}/api/tokens`, { headers: bearer(made.token) })).status).toBe(200);

    const response = await fetch(`${base}/api/tokens/${made.id}`, withSession(session, "DELETE"));
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const list = await readJson(
      await fetch(`${base}/api/tokens?per_page=100`, { headers: { cookie: session.cookie } }),
    );
    expect(list.data.map((row: { id: number }) => row.id)).not.toContain(made.id);
    const revoked = await fetch(`${base}/api/tokens`, { headers: bearer(made.token) });
    expect(revoked.status).toBe(401);
    expect(await readJson(revoked)).toEqual(UNAUTHENTICATED);

    const again = await fetch(`${base}/api/tokens/${made.id}`, withSession(session, "DELETE"));
    expect(again.status).toBe(404);
    expect(await readJson(again)).toEqual({ message: "Token not found." });
  }, 30_000);

  test("another user's token: 404, and it still works", async () => {
    const theirs = await madeToken(await signIn(base, other.email, PASSWORD));
    const response = await fetch(`${base}/api/tokens/${theirs.id}`, withSession(session, "DELETE"));
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "Token not found." });
    expect((await fetch(`${base}/api/tokens`, { headers: bearer(theirs.token) })).status).toBe(200);
  }, 30_000);

  test.each(["abc", "0", "1e3", "99999999999999999999"])(
    "id %s: 404",
    async (id) => {
      const response = await fetch(`${base}/api/tokens/${id}`, withSession(session, "DELETE"));
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Token not found." });
    },
    30_000,
  );

  test("no X-CSRF-Token: 419 and the token stays", async () => {
    const made = await madeToken();
    const response = await fetch(`${base}/api/tokens/${made.id}`, {
      method: "DELETE",
      headers: { cookie: session.cookie },
    });
    expect(response.status).toBe(419);
    expect(await readJson(response)).toEqual({ message: "CSRF token mismatch." });
    expect((await fetch(`${base}/api/tokens`, { headers: bearer(made.token) })).status).toBe(200);
  }, 30_000);

  test("with a bearer token, even the token itself: 403 with why, and it stays", async () => {
    const made = await madeToken();
    const response = await fetch(`${base}/api/tokens/${made.id}`, {
      method: "DELETE",
      headers: bearer(made.token),
    });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual(DASHBOARD_ONLY);
    expect((await fetch(`${base}/api/tokens`, { headers: bearer(made.token) })).status).toBe(200);
  }, 30_000);
});
