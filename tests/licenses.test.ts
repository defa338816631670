import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq } from "drizzle-orm";
import { licenseIps, licenses } from "../src/db/schema/index.ts";
import { createLicense } from "../src/features/licenses/service.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createUser } from "./helpers/factories.ts";

/**
 * The license API (docs/vendors.md, License keys): every route through HTTP with an `x-api-key`, on the
 * suite's database. Validation codes and IP sources are in license-validate.test.ts.
 */

let t: TestApp;
/** Vendors who create licenses, each with a key that acts only for them. */
let creatorA: { id: number };
let creatorB: { id: number };
let alice: { id: number };
let productA: { id: number };
let productB: { id: number };
/** Acts for every creator. */
let globalKey: string;
let keyA: string;
let keyB: string;
/** A listening server: validation takes the caller's address from the socket. */
let base: string;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Five groups of five Crockford base32 symbols (no I, L, O, U). */
const KEY = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;

beforeAll(async () => {
  t = await startTestApp();
  creatorA = await createUser(t.ctx, { role: "vendor" });
  creatorB = await createUser(t.ctx, { role: "vendor" });
  alice = await createUser(t.ctx);
  productA = await createProduct(t.ctx, creatorA);
  productB = await createProduct(t.ctx, creatorB);
  globalKey = (await apiKeyFor(t.ctx, null)).key;
  keyA = (await apiKeyFor(t.ctx, creatorA.id)).key;
  keyB = (await apiKeyFor(t.ctx, creatorB.id)).key;
  base = t.listen();
});
afterAll(() => t.close());

interface Call {
  method?: string;
  /** null: no `x-api-key` header at all. */
  key?: string | null;
  body?: unknown;
}

/** A license API call: JSON body (if any) and the `x-api-key` header (the global key unless told). */
function api(path: string, { method = "GET", key = globalKey, body }: Call = {}) {
  const headers: Record<string, string> = {};
  if (key !== null) headers["x-api-key"] = key;
  if (body !== undefined) headers["content-type"] = "application/json";
  return t.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A validation as shipped software sends it: no API key, from its own address. */
const validate = (body: unknown) =>
  fetch(`${base}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Alice's license for creator A's product unless `fields` says otherwise; returns the License JSON. */
async function newLicense(fields: Record<string, unknown> = {}, key = globalKey) {
  const response = await api("/api/v1/licenses", {
    method: "POST",
    key,
    body: {
      ownerId: String(alice.id),
      creatorId: String(creatorA.id),
      productId: String(productA.id),
      ...fields,
    },
  });
  expect(response.status).toBe(201);
  return readJson(response);
}

/** Registers `ip` for a license the way a server-side integration does: body `ip` vouched for by a key. */
async function registerIp(license: { key: string }, ip: string) {
  const response = await api("/api/v1/licenses/validate", { method: "POST", body: { key: license.key, ip } });
  expect(response.status).toBe(200);
  expect((await readJson(response)).code).toBe("VALID");
}

const licenseCount = async () => (await t.ctx.db.select({ n: count() }).from(licenses))[0]?.n ?? 0;

const ipsOf = async (id: string) => (await readJson(await api(`/api/v1/licenses/${id}/ips`))).ips;

describe("POST /api/v1/licenses", () => {
  test("201 with the License: the License fields typed as documented, plus key and timestamps", async () => {
    const before = Date.now();
    const response = await api("/api/v1/licenses", {
      method: "POST",
      body: { ownerId: String(alice.id), creatorId: String(creatorA.id), productId: String(productA.id) },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const license = await readJson(response);
    expect(license).toEqual({
      id: expect.stringMatching(UUID),
      userId: String(alice.id),
      creatorId: String(creatorA.id),
      productId: String(productA.id),
      expires: null,
      maxIps: 1,
      key: expect.stringMatching(KEY),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(Number.isInteger(license.maxIps)).toBe(true);
    expect(Date.parse(license.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(license.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, license.id));
    expect(row).toMatchObject({ key: license.key, userId: alice.id, revokedAt: null });
  });

  test("expires and maxIps are taken; ids may also be JSON integers; a zone-less time is UTC", async () => {
    const license = await newLicense({ expires: "2031-05-06T07:08:09+02:00", maxIps: 5 });
    expect(license).toMatchObject({ expires: "2031-05-06T05:08:09.000Z", maxIps: 5 });

    const numeric = await newLicense({ ownerId: alice.id, creatorId: creatorB.id, productId: productB.id });
    expect(numeric).toMatchObject({
      userId: String(alice.id),
      creatorId: String(creatorB.id),
      productId: String(productB.id),
    });

    expect((await newLicense({ expires: "2031-05-06T07:08:09" })).expires).toBe("2031-05-06T07:08:09.000Z");
    expect((await newLicense({ expires: "2031-05-06" })).expires).toBe("2031-05-06T00:00:00.000Z");
    expect((await newLicense({ expires: null })).expires).toBeNull();
  });

  test("every license gets its own key", async () => {
    const made = await Promise.all(Array.from({ length: 20 }, () => newLicense()));
    const keys = new Set(made.map((license) => license.key));
    expect(keys.size).toBe(20);
    for (const key of keys) expect(key).toMatch(KEY);
  });

  test("without maxIps the license gets LICENSE_DEFAULT_MAX_IPS", async () => {
    const other = await startTestApp({ env: { LICENSE_DEFAULT_MAX_IPS: "3" } });
    try {
      const owner = await createUser(other.ctx);
      const creator = await createUser(other.ctx, { role: "vendor" });
      const product = await createProduct(other.ctx, creator);
      const key = (await apiKeyFor(other.ctx, null)).key;
      const response = await other.request("/api/v1/licenses", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key },
        body: JSON.stringify({
          ownerId: String(owner.id),
          creatorId: String(creator.id),
          productId: String(product.id),
        }),
      });
      expect(response.status).toBe(201);
      expect((await readJson(response)).maxIps).toBe(3);
    } finally {
      await other.close();
    }
  });
});

describe("GET /api/v1/licenses/{id}", () => {
  test("the license in the list's shape, with nextPage null", async () => {
    const made = await newLicense({ maxIps: 2 });
    const response = await api(`/api/v1/licenses/${made.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ licenses: [made], nextPage: null });
    // An id is a UUID; its letter case does not matter.
    const upper = await readJson(await api(`/api/v1/licenses/${made.id.toUpperCase()}`));
    expect(upper).toEqual({ licenses: [made], nextPage: null });
  });

  test.each([
    ["an unknown uuid", "0190f3a0-0000-7000-8000-000000000000"],
    ["a non-uuid", "abc"],
    ["a number", "1"],
    ["SQL", encodeURIComponent("' OR '1'='1")],
    ["SQL after a uuid", encodeURIComponent("0190f3a0-0000-7000-8000-000000000000' OR 1=1--")],
    ["unicode", encodeURIComponent("ключ-🔑")],
  ])("%s → 404 License not found.", async (_, id) => {
    const response = await api(`/api/v1/licenses/${id}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "License not found." });
  });

  test("the id is the license's id, not its key", async () => {
    const made = await newLicense();
    const response = await api(`/api/v1/licenses/${made.key}`);
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "License not found." });
  });
});

describe("GET /api/v1/licenses", () => {
  /** A creator of its own with 51 licenses, listed through a key scoped to it so nothing else shows. */
  let pager: string;
  const made: string[] = [];

  beforeAll(async () => {
    const creator = await createUser(t.ctx, { role: "vendor" });
    const product = await createProduct(t.ctx, creator);
    const scoped = await apiKeyFor(t.ctx, creator.id);
    pager = scoped.key;
    for (let i = 0; i < 51; i++) {
      const license = await createLicense(
        t.ctx,
        { id: scoped.id, creatorId: creator.id },
        { ownerId: String(alice.id), creatorId: String(creator.id), productId: String(product.id) },
      );
      made.push(license.id);
    }
  });

  test("50 per page, oldest first; nextPage is the next page's number, then null", async () => {
    const first = await api("/api/v1/licenses", { key: pager });
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("application/json");
    const page1 = await readJson(first);
    expect(page1.licenses.map((l: { id: string }) => l.id)).toEqual(made.slice(0, 50));
    expect(page1.nextPage).toBe(2);
    expect(page1.licenses[0]).toEqual({
      id: made[0],
      userId: String(alice.id),
      creatorId: expect.any(String),
      productId: expect.any(String),
      expires: null,
      maxIps: 1,
      key: expect.stringMatching(KEY),
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });

    const page2 = await readJson(await api("/api/v1/licenses?page=2", { key: pager }));
    expect(page2).toEqual({ licenses: [expect.objectContaining({ id: made[50] })], nextPage: null });

    expect(await readJson(await api("/api/v1/licenses?page=1", { key: pager }))).toEqual(page1);
    expect(await readJson(await api("/api/v1/licenses?page=3", { key: pager }))).toEqual({
      licenses: [],
      nextPage: null,
    });
  });

  test.each(["0", "-1", "abc", "1.5", "1e3", "0x10", " 2"])(
    "page=%s → 422 with errors.page",
    async (page) => {
      const response = await api(`/api/v1/licenses?page=${encodeURIComponent(page)}`, { key: pager });
      expect(response.status).toBe(422);
      expect(await readJson(response)).toEqual({
        message: "The page field must be an integer of at least 1.",
        errors: { page: ["The page field must be an integer of at least 1."] },
      });
    },
  );
});

describe("PATCH /api/v1/licenses/{id}", () => {
  const patch = (id: string, body: unknown, key = globalKey) =>
    api(`/api/v1/licenses/${id}`, { method: "PATCH", key, body });

  test("each of the five fields alone → 200 License, the rest unchanged", async () => {
    const made = await newLicense({ maxIps: 2 });
    const owner = await createUser(t.ctx);
    const changes: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ ownerId: String(owner.id) }, { userId: String(owner.id) }],
      [{ creatorId: String(creatorB.id) }, { creatorId: String(creatorB.id) }],
      [{ productId: String(productB.id) }, { productId: String(productB.id) }],
      [{ expires: "2040-01-01T00:00:00Z" }, { expires: "2040-01-01T00:00:00.000Z" }],
      [{ maxIps: 7 }, { maxIps: 7 }],
    ];
    let current = made;
    for (const [body, expected] of changes) {
      const response = await patch(made.id, body);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      const updated = await readJson(response);
      expect(updated).toEqual({ ...current, ...expected, updatedAt: expect.stringMatching(ISO) });
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(current.updatedAt));
      current = updated;
    }
    expect(await readJson(await api(`/api/v1/licenses/${made.id}`))).toEqual({
      licenses: [current],
      nextPage: null,
    });
    expect(current).toMatchObject({ id: made.id, key: made.key, createdAt: made.createdAt });
  });

  test("all five at once; expires: null clears the expiry", async () => {
    const made = await newLicense({ expires: "2030-01-01T00:00:00Z" });
    const response = await patch(made.id, {
      ownerId: alice.id,
      creatorId: String(creatorB.id),
      productId: String(productB.id),
      expires: null,
      maxIps: 4,
    });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({
      ...made,
      creatorId: String(creatorB.id),
      productId: String(productB.id),
      expires: null,
      maxIps: 4,
      updatedAt: expect.stringMatching(ISO),
    });
  });

  test("an empty body changes nothing and answers 200 with the license", async () => {
    const made = await newLicense();
    const response = await patch(made.id, {});
    expect(response.status).toBe(200);
    expect(await readJson(response)).toEqual({ ...made, updatedAt: expect.stringMatching(ISO) });
  });

  test("lowering maxIps below the registered count forgets the least recently seen addresses", async () => {
    const made = await newLicense({ maxIps: 5 });
    const seenMinutesAgo: Record<string, number> = {
      "192.0.2.1": 40,
      "192.0.2.2": 10,
      "192.0.2.3": 30,
      "192.0.2.4": 20,
    };
    for (const ip of Object.keys(seenMinutesAgo)) await registerIp(made, ip);
    for (const [ip, minutes] of Object.entries(seenMinutesAgo)) {
      await t.ctx.db
        .update(licenseIps)
        .set({ lastSeenAt: new Date(Date.now() - minutes * 60_000) })
        .where(and(eq(licenseIps.licenseId, made.id), eq(licenseIps.ip, ip)));
    }

    // Raising, or lowering to no less than the count, forgets nothing.
    expect((await patch(made.id, { maxIps: 6 })).status).toBe(200);
    expect((await patch(made.id, { maxIps: 4 })).status).toBe(200);
    expect(await ipsOf(made.id)).toHaveLength(4);

    const response = await patch(made.id, { maxIps: 2 });
    expect(response.status).toBe(200);
    expect((await readJson(response)).maxIps).toBe(2);
    const kept = (await ipsOf(made.id)).map((entry: { ip: string }) => entry.ip).toSorted();
    expect(kept).toEqual(["192.0.2.2", "192.0.2.4"]);

    // The two kept addresses fill the license: a forgotten one is now one too many.
    const again = await api("/api/v1/licenses/validate", {
      method: "POST",
      body: { key: made.key, ip: "192.0.2.1" },
    });
    expect(await readJson(again)).toMatchObject({ code: "TOO_MANY_IPS", ips: { count: 2, max: 2 } });
    // A kept address is known: its answer counts the addresses left (licenses.ip_count followed the delete).
    const known = await api("/api/v1/licenses/validate", {
      method: "POST",
      body: { key: made.key, ip: "192.0.2.2" },
    });
    expect(await readJson(known)).toMatchObject({ code: "VALID", ips: { count: 2, max: 2 } });
  });

  test.each([
    ["ownerId: abc", { ownerId: "abc" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["unknown ownerId", { ownerId: "999999" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["unknown creatorId", { creatorId: "999999" }, { creatorId: ["The selected creatorId is invalid."] }],
    ["unknown productId", { productId: "999999" }, { productId: ["The selected productId is invalid."] }],
    [
      "expires: tomorrow",
      { expires: "tomorrow" },
      { expires: ["The expires field must be a valid ISO 8601 date-time."] },
    ],
    ["maxIps: 0", { maxIps: 0 }, { maxIps: ["The maxIps field must be at least 1."] }],
    ["maxIps: 1.5", { maxIps: 1.5 }, { maxIps: ["The maxIps field must be an integer."] }],
    ["maxIps: '2'", { maxIps: "2" }, { maxIps: ["The maxIps field must be an integer."] }],
    ["an unknown field", { key: "MINE0-MINE0-MINE0-MINE0-MINE0" }, { key: ["The key field is prohibited."] }],
  ])("%s → 422, nothing changed", async (_, body, errors) => {
    const made = await newLicense();
    const response = await patch(made.id, body);
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({ message: expect.any(String), errors });
    expect(await readJson(await api(`/api/v1/licenses/${made.id}`))).toEqual({
      licenses: [made],
      nextPage: null,
    });
  });

  test("an unknown license → 404", async () => {
    const response = await patch("0190f3a0-0000-7000-8000-000000000000", { maxIps: 2 });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "License not found." });
  });
});

describe("DELETE /api/v1/licenses/{id}", () => {
  test("204 revokes: the license stays readable and validation answers REVOKED", async () => {
    const made = await newLicense();
    const response = await api(`/api/v1/licenses/${made.id}`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const read = await api(`/api/v1/licenses/${made.id}`);
    expect(read.status).toBe(200);
    const revoked = { ...made, updatedAt: expect.stringMatching(ISO) };
    expect(await readJson(read)).toEqual({ licenses: [revoked], nextPage: null });

    const validation = await readJson(await validate({ key: made.key }));
    expect(validation).toMatchObject({ valid: false, code: "REVOKED", license: revoked });

    // Revoking twice is harmless.
    expect((await api(`/api/v1/licenses/${made.id}`, { method: "DELETE" })).status).toBe(204);
  });

  test("an unknown license → 404", async () => {
    const response = await api("/api/v1/licenses/0190f3a0-0000-7000-8000-000000000000", { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await readJson(response)).toEqual({ message: "License not found." });
  });
});

describe("/api/v1/licenses/{id}/ips", () => {
  test("GET lists the registered addresses with when they were first and last seen", async () => {
    const made = await newLicense({ maxIps: 3 });
    expect(await readJson(await api(`/api/v1/licenses/${made.id}/ips`))).toEqual({ ips: [] });
    await registerIp(made, "198.51.100.7");
    await registerIp(made, "2001:DB8:0:0::1");
    const response = await api(`/api/v1/licenses/${made.id}/ips`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { ips } = await readJson(response);
    expect(ips).toEqual([
      { ip: "198.51.100.7", firstSeenAt: expect.stringMatching(ISO), lastSeenAt: expect.stringMatching(ISO) },
      { ip: "2001:db8::1", firstSeenAt: expect.stringMatching(ISO), lastSeenAt: expect.stringMatching(ISO) },
    ]);
  });

  test("DELETE …/ips/{ip} forgets one address (204); one not registered → 404; a non-address → 422", async () => {
    const made = await newLicense({ maxIps: 3 });
    await registerIp(made, "198.51.100.7");
    await registerIp(made, "2001:db8::1");
    await registerIp(made, "203.0.113.5");

    const response = await api(`/api/v1/licenses/${made.id}/ips/198.51.100.7`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    // An IPv6 address in any spelling, and IPv4 written as mapped IPv6, name the stored address.
    const v6 = encodeURIComponent("2001:DB8:0::1");
    expect((await api(`/api/v1/licenses/${made.id}/ips/${v6}`, { method: "DELETE" })).status).toBe(204);
    const mapped = encodeURIComponent("::ffff:203.0.113.5");
    expect((await api(`/api/v1/licenses/${made.id}/ips/${mapped}`, { method: "DELETE" })).status).toBe(204);
    expect(await ipsOf(made.id)).toEqual([]);

    const again = await api(`/api/v1/licenses/${made.id}/ips/198.51.100.7`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(await readJson(again)).toEqual({ message: "IP address not found." });

    for (const bad of ["not-an-ip", "300.1.1.1", encodeURIComponent("' OR 1=1--")]) {
      const invalid = await api(`/api/v1/licenses/${made.id}/ips/${bad}`, { method: "DELETE" });
      expect({ bad, status: invalid.status }).toEqual({ bad, status: 422 });
      expect(await readJson(invalid)).toEqual({
        message: "The ip field must be a valid IP address.",
        errors: { ip: ["The ip field must be a valid IP address."] },
      });
    }
  });

  test("DELETE …/ips/{ip} whose segment decodes to a broken escape (%25E0) → 422 on ip, not a 500", async () => {
    const made = await newLicense();
    await registerIp(made, "198.51.100.8");
    for (const segment of ["%25E0", "%25", "%E0"]) {
      const response = await fetch(`${base}/api/v1/licenses/${made.id}/ips/${segment}`, {
        method: "DELETE",
        headers: { "x-api-key": globalKey },
      });
      expect({ segment, status: response.status }).toEqual({ segment, status: 422 });
      expect(await readJson(response)).toEqual({
        message: "The ip field must be a valid IP address.",
        errors: { ip: ["The ip field must be a valid IP address."] },
      });
    }
    expect((await ipsOf(made.id)).map((row: { ip: string }) => row.ip)).toEqual(["198.51.100.8"]);
  });

  test("DELETE …/ips forgets them all (204), and a new address can register again", async () => {
    const made = await newLicense({ maxIps: 2 });
    await registerIp(made, "198.51.100.1");
    await registerIp(made, "198.51.100.2");
    const response = await api(`/api/v1/licenses/${made.id}/ips`, { method: "DELETE" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await ipsOf(made.id)).toEqual([]);
    await registerIp(made, "198.51.100.3");
    expect(await ipsOf(made.id)).toEqual([expect.objectContaining({ ip: "198.51.100.3" })]);
  });

  test.each([
    ["GET", "/ips"],
    ["DELETE", "/ips"],
    ["DELETE", "/ips/198.51.100.7"],
  ])("%s …%s of an unknown license → 404", async (method, suffix) => {
    for (const id of ["0190f3a0-0000-7000-8000-000000000000", "abc"]) {
      const response = await api(`/api/v1/licenses/${id}${suffix}`, { method });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "License not found." });
    }
  });
});

describe("creator-scoped API keys", () => {
  let ofA: { id: string; key: string };
  let ofB: { id: string; key: string; updatedAt: string };

  beforeAll(async () => {
    ofA = await newLicense({ creatorId: String(creatorA.id) }, keyA);
    ofB = await newLicense(
      { creatorId: String(creatorB.id), productId: String(productB.id), maxIps: 2 },
      keyB,
    );
    await registerIp(ofB, "198.51.100.99");
  });

  /** Every page of the list as `key` sees it. */
  async function everything(key: string) {
    const all: { id: string; creatorId: string }[] = [];
    for (let page = 1; ; page++) {
      const body = await readJson(await api(`/api/v1/licenses?page=${page}`, { key }));
      all.push(...body.licenses);
      if (body.nextPage === null) return all;
      expect(body.nextPage).toBe(page + 1);
    }
  }

  test("a scoped key lists only its creator's licenses; an unscoped key lists all", async () => {
    const seenByA = await everything(keyA);
    expect(seenByA.map((l) => l.id)).toContain(ofA.id);
    expect(new Set(seenByA.map((l) => l.creatorId))).toEqual(new Set([String(creatorA.id)]));

    const seenByGlobal = (await everything(globalKey)).map((l) => l.id);
    expect(seenByGlobal).toContain(ofA.id);
    expect(seenByGlobal).toContain(ofB.id);
    expect(seenByGlobal.length).toBe(await licenseCount());
  });

  test.each([
    ["GET", ""],
    ["PATCH", ""],
    ["DELETE", ""],
    ["GET", "/ips"],
    ["DELETE", "/ips"],
    ["DELETE", "/ips/198.51.100.99"],
  ])(
    "%s /api/v1/licenses/{id}%s of another creator's license → 404, and nothing changes",
    async (method, suffix) => {
      const response = await api(`/api/v1/licenses/${ofB.id}${suffix}`, {
        method,
        key: keyA,
        body: method === "PATCH" ? { maxIps: 1 } : undefined,
      });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "License not found." });

      const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, ofB.id));
      expect(row).toMatchObject({ maxIps: 2, revokedAt: null });
      expect((await ipsOf(ofB.id)).map((entry: { ip: string }) => entry.ip)).toEqual(["198.51.100.99"]);
    },
  );

  test("a scoped key creates only with its own creatorId: another's → 403 and no row", async () => {
    const before = await licenseCount();
    const response = await api("/api/v1/licenses", {
      method: "POST",
      key: keyA,
      body: { ownerId: String(alice.id), creatorId: String(creatorB.id), productId: String(productB.id) },
    });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual({
      message: "This API key may only create licenses for its own creator.",
    });
    expect(await licenseCount()).toBe(before);
  });

  describe("a scoped key licenses only its creator's own products (through a listening server)", () => {
    /** The license API over a real socket. */
    const overHttp = (path: string, method: string, key: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const create = (productId: number) =>
      overHttp("/api/v1/licenses", "POST", keyA, {
        ownerId: String(alice.id),
        creatorId: String(creatorA.id),
        productId: String(productId),
      });
    const REFUSED = { message: "This API key may only license its creator's own products." };

    test("another creator's product, listed or hidden → 403, no row", async () => {
      const hidden = await createProduct(t.ctx, creatorB, { hidden: true });
      for (const foreign of [productB, hidden]) {
        const before = await licenseCount();
        const response = await create(foreign.id);
        expect(response.status).toBe(403);
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(await readJson(response)).toEqual(REFUSED);
        expect(await licenseCount()).toBe(before);
      }
    });

    test("a product the creator is the vendor of → 201; an unknown product → 422", async () => {
      const vended = await createProduct(t.ctx, creatorB, { vendor_id: creatorA.id });
      const created = await create(vended.id);
      expect(created.status).toBe(201);
      expect(await readJson(created)).toMatchObject({
        productId: String(vended.id),
        creatorId: String(creatorA.id),
      });

      const unknown = await create(999_999);
      expect(unknown.status).toBe(422);
      expect((await readJson(unknown)).errors).toEqual({ productId: ["The selected productId is invalid."] });
    });

    test("PATCH of its own license onto another creator's product → 403, unchanged", async () => {
      const response = await overHttp(`/api/v1/licenses/${ofA.id}`, "PATCH", keyA, {
        productId: String(productB.id),
        maxIps: 5,
      });
      expect(response.status).toBe(403);
      expect(await readJson(response)).toEqual(REFUSED);
      const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, ofA.id));
      expect(row).toMatchObject({ productId: productA.id });
      expect(row?.maxIps).not.toBe(5);
    });

    test("an unscoped key still licenses any product", async () => {
      const response = await overHttp("/api/v1/licenses", "POST", globalKey, {
        ownerId: String(alice.id),
        creatorId: String(creatorA.id),
        productId: String(productB.id),
      });
      expect(response.status).toBe(201);
    });
  });

  test("a scoped key may not hand its license to another creator: 403, unchanged", async () => {
    const response = await api(`/api/v1/licenses/${ofA.id}`, {
      method: "PATCH",
      key: keyA,
      body: { creatorId: String(creatorB.id), maxIps: 9 },
    });
    expect(response.status).toBe(403);
    expect(await readJson(response)).toEqual({
      message: "This API key may only assign licenses to its own creator.",
    });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, ofA.id));
    expect(row).toMatchObject({ creatorId: creatorA.id, maxIps: 1 });
  });

  test("a scoped key reads and changes its own creator's licenses", async () => {
    const read = await api(`/api/v1/licenses/${ofA.id}`, { key: keyA });
    expect(read.status).toBe(200);
    const patched = await api(`/api/v1/licenses/${ofA.id}`, {
      method: "PATCH",
      key: keyA,
      body: { creatorId: String(creatorA.id), maxIps: 2 },
    });
    expect(patched.status).toBe(200);
    expect((await readJson(patched)).maxIps).toBe(2);
  });

  test("an unscoped key reads and changes any creator's license", async () => {
    const read = await api(`/api/v1/licenses/${ofB.id}`, { key: globalKey });
    expect((await readJson(read)).licenses[0].creatorId).toBe(String(creatorB.id));
    const made = await newLicense({ creatorId: String(creatorB.id) }, globalKey);
    const patched = await api(`/api/v1/licenses/${made.id}`, {
      method: "PATCH",
      body: { creatorId: String(creatorA.id) },
    });
    expect((await readJson(patched)).creatorId).toBe(String(creatorA.id));
  });
});

describe("x-api-key", () => {
  test("the key is checked before the body: no key and a bad body → 401, not 422", async () => {
    const response = await api("/api/v1/licenses", { method: "POST", key: null, body: { ownerId: "abc" } });
    expect(response.status).toBe(401);
    expect(await readJson(response)).toEqual({ message: "Invalid API key." });
  });
});

describe("bad input", () => {
  const valid = () => ({
    ownerId: String(alice.id),
    creatorId: String(creatorA.id),
    productId: String(productA.id),
  });
  const create = (body: unknown) => api("/api/v1/licenses", { method: "POST", body });

  test.each([
    [
      "an empty object",
      { ownerId: undefined, creatorId: undefined, productId: undefined },
      {
        ownerId: ["The ownerId field is required."],
        creatorId: ["The creatorId field is required."],
        productId: ["The productId field is required."],
      },
    ],
    ["missing productId", { productId: undefined }, { productId: ["The productId field is required."] }],
    ["ownerId: abc", { ownerId: "abc" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["ownerId: 0", { ownerId: "0" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["ownerId: 1e3", { ownerId: "1e3" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["ownerId: -1", { ownerId: -1 }, { ownerId: ["The selected ownerId is invalid."] }],
    ["ownerId: huge", { ownerId: "99999999999999999999" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["ownerId: true", { ownerId: true }, { ownerId: ["The ownerId field must be a string."] }],
    ["unknown ownerId", { ownerId: "999999" }, { ownerId: ["The selected ownerId is invalid."] }],
    ["unknown creatorId", { creatorId: "999999" }, { creatorId: ["The selected creatorId is invalid."] }],
    ["unknown productId", { productId: "999999" }, { productId: ["The selected productId is invalid."] }],
    [
      "expires: tomorrow",
      { expires: "tomorrow" },
      { expires: ["The expires field must be a valid ISO 8601 date-time."] },
    ],
    [
      "expires: 2030-13-45",
      { expires: "2030-13-45T00:00:00Z" },
      { expires: ["The expires field must be a valid ISO 8601 date-time."] },
    ],
    [
      "expires: February 30th",
      { expires: "2030-02-30T00:00:00Z" },
      { expires: ["The expires field must be a valid ISO 8601 date-time."] },
    ],
    ["expires: a number", { expires: 1893456000 }, { expires: ["The expires field must be a string."] }],
    ["maxIps: -1", { maxIps: -1 }, { maxIps: ["The maxIps field must be at least 1."] }],
    ["maxIps: 0", { maxIps: 0 }, { maxIps: ["The maxIps field must be at least 1."] }],
    ["maxIps: 1.5", { maxIps: 1.5 }, { maxIps: ["The maxIps field must be an integer."] }],
    ["maxIps: '2'", { maxIps: "2" }, { maxIps: ["The maxIps field must be an integer."] }],
    ["maxIps: 10001", { maxIps: 10_001 }, { maxIps: ["The maxIps field must not be greater than 10000."] }],
    ["an unknown field", { key: "MINE0-MINE0-MINE0-MINE0-MINE0" }, { key: ["The key field is prohibited."] }],
  ])("%s → 422 with the field's errors, and no license", async (_, fields, errors) => {
    const before = await licenseCount();
    // A field set to undefined is left out of the JSON.
    const response = await create({ ...valid(), ...fields });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("application/json");
    const json = await readJson(response);
    expect(json).toEqual({ message: expect.any(String), errors });
    expect(json.message).toStartWith(Object.values(errors)[0]?.[0] ?? "");
    expect(await licenseCount()).toBe(before);
  });

  test("several unknown references → one 422 naming each field", async () => {
    const response = await create({ ownerId: "999998", creatorId: "999999", productId: "abc" });
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({
      message: "The selected ownerId is invalid. (and 2 more errors)",
      errors: {
        ownerId: ["The selected ownerId is invalid."],
        creatorId: ["The selected creatorId is invalid."],
        productId: ["The selected productId is invalid."],
      },
    });
  });

  test.each([
    ["malformed JSON", '{"ownerId": "1",'],
    ["a bare word", "license please"],
  ])("%s → 400 with a JSON message", async (_, raw) => {
    const response = await create(raw);
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({ message: "The request body could not be parsed as JSON." });
  });

  test.each([
    ["an array", [1, 2]],
    ["null", null],
    ["a string", "license"],
  ])("a JSON body that is %s → 4xx with a JSON message, never 500", async (_, body) => {
    const response = await api("/api/v1/licenses", { method: "POST", body: JSON.stringify(body) });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect((await readJson(response)).message).toEqual(expect.any(String));
  });

  test("a 10 MB body → 413 with a JSON message, from a listening server", async () => {
    const before = await licenseCount();
    const response = await fetch(`${base}/api/v1/licenses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": globalKey },
      body: JSON.stringify({ ...valid(), expires: "x".repeat(10 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await readJson(response)).toEqual({ message: "The request body is too large." });
    expect(await licenseCount()).toBe(before);
  });

  test.each([
    ["SQL", "' OR '1'='1"],
    ["SQL with a comment", "x'; DROP TABLE licenses; --"],
    ["unicode", "ÄÖÜ-ключ-🔑-ǅ"],
    ["a lone surrogate", "\ud800ABCDE"],
    ["only spaces", "   "],
  ])("a validate key with %s → 200 NOT_FOUND", async (_, key) => {
    const response = await validate({ key });
    expect(response.status).toBe(200);
    expect(await readJson(response)).toMatchObject({
      valid: false,
      code: "NOT_FOUND",
      license: null,
      ips: { count: 0, max: 0 },
    });
    expect(await licenseCount()).toBeGreaterThan(0);
  });

  test("a validate key with a NUL character → 422 on key (PostgreSQL cannot store NUL)", async () => {
    const response = await validate({ key: "ABCDE\u0000FGHIJ" });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      key: ["The key field must not contain NUL characters."],
    });
  });
});
