import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { licenseIpResets, licenseIps, licenses } from "../src/db/schema/index.ts";
import { deleteApiKey } from "../src/features/api-keys/service.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import {
  apiKeyFor,
  createUser,
  type LicenseWorld,
  licenseIn,
  licenseWorld,
  tokenFor,
} from "./helpers/factories.ts";

/**
 * `POST /api/v1/licenses/validate` as shipped software calls it (no API key, from its own address,
 * against a listening server), server-side checks on a customer's behalf (body `ip` + `x-api-key`),
 * the IP limit under concurrency on both databases, and the owner's self-service IP reset.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type World = LicenseWorld;

interface License {
  id: string;
  key: string;
  maxIps: number | null;
  expires: string | null;
}

/** A validation against the listening server at `url`, with extra headers if given. */
const validateAt = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/licenses/validate`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** The license's registered addresses; its `ip_count` (which validation answers with) must count them. */
async function registeredIps(app: TestApp, licenseId: string) {
  const rows = await app.ctx.db
    .select({ ip: licenseIps.ip })
    .from(licenseIps)
    .where(eq(licenseIps.licenseId, licenseId));
  const [counted] = await app.ctx.db
    .select({ ipCount: licenses.ipCount })
    .from(licenses)
    .where(eq(licenses.id, licenseId));
  expect({ licenseId, ipCount: counted?.ipCount }).toEqual({ licenseId, ipCount: rows.length });
  return rows.map((row) => row.ip).toSorted();
}

let t: TestApp;
let w: World;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await licenseWorld(t.ctx);
  base = t.listen();
});
afterAll(() => t.close());

const newLicense = (fields: Record<string, unknown> = {}) => licenseIn(t, w, fields);
const validate = (body: unknown, headers: Record<string, string> = {}) => validateAt(base, body, headers);
/** The license as the API reads it, to compare with the one a validation returns. */
const read = async (id: string) =>
  (await readJson(await t.request(`/api/v1/licenses/${id}`, { headers: { "x-api-key": w.globalKey } })))
    .licenses[0];
/** Registers `ip` as a server-side integration does: body `ip` vouched for by an API key. */
async function registerIp(license: License, ip: string) {
  const body = await readJson(await validate({ key: license.key, ip }, { "x-api-key": w.globalKey }));
  expect(body.code).toBe("VALID");
}
const api = (path: string, method: string, body?: unknown) =>
  t.request(path, {
    method,
    headers: { "content-type": "application/json", "x-api-key": w.globalKey },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("the codes, checked in order", () => {
  test("NOT_FOUND: no license, ips {count: 0, max: 0}; the full response shape", async () => {
    const before = Date.now();
    const response = await validate({ key: "00000-00000-00000-00000-00000" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    expect(body).toEqual({
      valid: false,
      code: "NOT_FOUND",
      detail: "No license has this key.",
      ts: expect.stringMatching(ISO),
      nonce: null,
      license: null,
      ips: { count: 0, max: 0 },
    });
    expect(Date.parse(body.ts)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(body.ts)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  /** A license that fails every later check too: expired, full (another address), and asked for another product. */
  async function failingEverything() {
    const license = await newLicense({ maxIps: 1 });
    await registerIp(license, "192.0.2.1");
    const patched = await api(`/api/v1/licenses/${license.id}`, "PATCH", { expires: "2020-01-01T00:00:00Z" });
    expect(patched.status).toBe(200);
    return license;
  }

  test("REVOKED comes before EXPIRED, PRODUCT_MISMATCH and TOO_MANY_IPS", async () => {
    const license = await failingEverything();
    expect((await api(`/api/v1/licenses/${license.id}`, "DELETE")).status).toBe(204);
    const body = await readJson(await validate({ key: license.key, productId: String(w.productB.id) }));
    expect(body).toEqual({
      valid: false,
      code: "REVOKED",
      detail: "This license has been revoked.",
      ts: expect.stringMatching(ISO),
      nonce: null,
      license: await read(license.id),
      ips: { count: 1, max: 1 },
    });
    expect(await registeredIps(t, license.id)).toEqual(["192.0.2.1"]);
  });

  test("EXPIRED comes before PRODUCT_MISMATCH and TOO_MANY_IPS", async () => {
    const license = await failingEverything();
    const body = await readJson(await validate({ key: license.key, productId: String(w.productB.id) }));
    expect(body).toEqual({
      valid: false,
      code: "EXPIRED",
      detail: "This license expired at 2020-01-01T00:00:00.000Z.",
      ts: expect.stringMatching(ISO),
      nonce: null,
      license: await read(license.id),
      ips: { count: 1, max: 1 },
    });
  });

  test("EXPIRED: a license whose expiry has passed registers no address", async () => {
    const license = await newLicense({ expires: new Date(Date.now() - 1000).toISOString(), maxIps: 3 });
    const body = await readJson(await validate({ key: license.key }));
    expect(body).toMatchObject({ valid: false, code: "EXPIRED", ips: { count: 0, max: 3 } });
    expect(await registeredIps(t, license.id)).toEqual([]);
  });

  test("PRODUCT_MISMATCH comes before TOO_MANY_IPS: another product's id, as a string, a number or 'abc'", async () => {
    const license = await newLicense({ maxIps: 1 });
    await registerIp(license, "192.0.2.1");
    for (const productId of [String(w.productB.id), w.productB.id, "abc", "999999", "0"]) {
      const body = await readJson(await validate({ key: license.key, productId }));
      expect({ productId, body }).toEqual({
        productId,
        body: {
          valid: false,
          code: "PRODUCT_MISMATCH",
          detail: "This license is for another product.",
          ts: expect.stringMatching(ISO),
          nonce: null,
          license: await read(license.id),
          ips: { count: 1, max: 1 },
        },
      });
    }
  });

  test("PRODUCT_MISMATCH registers no address", async () => {
    const license = await newLicense({ maxIps: 3 });
    const body = await readJson(await validate({ key: license.key, productId: String(w.productB.id) }));
    expect(body).toMatchObject({ code: "PRODUCT_MISMATCH", ips: { count: 0, max: 3 } });
    expect(await registeredIps(t, license.id)).toEqual([]);
  });

  test("TOO_MANY_IPS: a new address once maxIps are registered, and it is not registered", async () => {
    const license = await newLicense({ maxIps: 1 });
    await registerIp(license, "192.0.2.1");
    const body = await readJson(await validate({ key: license.key, productId: String(w.productA.id) }));
    expect(body).toEqual({
      valid: false,
      code: "TOO_MANY_IPS",
      detail: "This license is already in use from its maximum of 1 IP address.",
      ts: expect.stringMatching(ISO),
      nonce: null,
      license: await read(license.id),
      ips: { count: 1, max: 1 },
    });
    expect(await registeredIps(t, license.id)).toEqual(["192.0.2.1"]);

    const two = await newLicense({ maxIps: 2 });
    await registerIp(two, "192.0.2.1");
    await registerIp(two, "192.0.2.2");
    expect((await readJson(await validate({ key: two.key }))).detail).toBe(
      "This license is already in use from its maximum of 2 IP addresses.",
    );
  });

  test("maxIps null: no address limit, ips.max null, every address registered and listed", async () => {
    const license = await newLicense({ maxIps: null });
    expect(license.maxIps).toBeNull();
    for (const ip of ["192.0.2.1", "192.0.2.2", "198.51.100.7"]) await registerIp(license, ip);
    const body = await readJson(await validate({ key: license.key, productId: String(w.productA.id) }));
    expect(body).toMatchObject({ valid: true, code: "VALID", ips: { count: 4, max: null } });
    expect(body.license.maxIps).toBeNull();
    expect((await registeredIps(t, license.id)).length).toBe(4);
  });

  test("a license created with maxMachines has no address limit unless it names one", async () => {
    const machines = await newLicense({ maxMachines: 2 });
    expect(machines.maxIps).toBeNull();
    expect((await read(machines.id)).maxIps).toBeNull();
    expect((await newLicense({ maxMachines: 2, maxIps: 3 })).maxIps).toBe(3);
    // Without machines the default stays LICENSE_DEFAULT_MAX_IPS (1).
    expect((await newLicense()).maxIps).toBe(1);
    expect((await newLicense({ maxMachines: null })).maxIps).toBe(1);
  });

  test("PATCH maxIps null lifts the limit; a number brings it back and forgets the extra addresses", async () => {
    const license = await newLicense({ maxIps: 1 });
    await registerIp(license, "192.0.2.1");
    const lifted = await api(`/api/v1/licenses/${license.id}`, "PATCH", { maxIps: null });
    expect(lifted.status).toBe(200);
    expect((await readJson(lifted)).maxIps).toBeNull();
    await registerIp(license, "192.0.2.2");
    expect(await registeredIps(t, license.id)).toEqual(["192.0.2.1", "192.0.2.2"]);
    const limited = await readJson(await api(`/api/v1/licenses/${license.id}`, "PATCH", { maxIps: 1 }));
    expect(limited.maxIps).toBe(1);
    expect((await registeredIps(t, license.id)).length).toBe(1);
    const bad = await api(`/api/v1/licenses/${license.id}`, "PATCH", { maxIps: 0 });
    expect(bad.status).toBe(422);
    expect(Object.keys((await readJson(bad)).errors)).toEqual(["maxIps"]);
  });

  test("VALID: the license, its address count and the nonce echoed", async () => {
    const license = await newLicense({ maxIps: 2, expires: "2099-01-01T00:00:00Z" });
    const response = await validate({ key: license.key, productId: String(w.productA.id), nonce: "n-42" });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body).toEqual({
      valid: true,
      code: "VALID",
      detail: "This license is valid.",
      ts: expect.stringMatching(ISO),
      nonce: "n-42",
      license: await read(license.id),
      ips: { count: 1, max: 2 },
    });
    // The product may be named by a JSON integer too, or not at all.
    for (const extra of [{ productId: w.productA.id }, {}]) {
      const again = await readJson(await validate({ key: license.key, ...extra }));
      expect(again).toMatchObject({ valid: true, code: "VALID", nonce: null, ips: { count: 1, max: 2 } });
    }
  });

  test("the nonce is echoed as sent, null when absent", async () => {
    const license = await newLicense();
    for (const nonce of ["abc", "ünï-🔑", "' OR 1=1--", ""]) {
      expect((await readJson(await validate({ key: license.key, nonce }))).nonce).toBe(nonce);
    }
    expect((await readJson(await validate({ key: license.key }))).nonce).toBeNull();
    // A key that matches nothing echoes it too.
    expect((await readJson(await validate({ key: "nope", nonce: "x1" }))).nonce).toBe("x1");
  });

  test("the key lookup ignores letter case and surrounding spaces", async () => {
    const license = await newLicense();
    for (const key of [license.key.toLowerCase(), `  ${license.key}\n`, ` ${license.key.toLowerCase()}\t`]) {
      const body = await readJson(await validate({ key }));
      expect({ key, code: body.code }).toEqual({ key, code: "VALID" });
      expect(body.license.id).toBe(license.id);
    }
    // Inner changes are another key.
    const altered = license.key.replaceAll("-", "");
    expect((await readJson(await validate({ key: altered }))).code).toBe("NOT_FOUND");
  });

  test.each([
    ["no key", {}, { key: ["The key field is required."] }],
    ["an empty key", { key: "" }, { key: ["The key field is required."] }],
    [
      "a key of 201 characters",
      { key: "A".repeat(201) },
      { key: ["The key field must not be greater than 200 characters."] },
    ],
    ["a numeric key", { key: 12345 }, { key: ["The key field must be a string."] }],
    [
      "an unknown field",
      { key: "X", licenseKey: "X" },
      { licenseKey: ["The licenseKey field is prohibited."] },
    ],
    [
      "productId: true",
      { key: "X", productId: true },
      { productId: ["The productId field must be a string."] },
    ],
  ])("a malformed body (%s) → 422 with the field's errors", async (_, body, errors) => {
    const response = await validate(body);
    expect(response.status).toBe(422);
    expect(await readJson(response)).toEqual({ message: expect.any(String), errors });
  });

  test("malformed JSON → 400 with a JSON message", async () => {
    const response = await validate('{"key": ');
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({ message: "The request body could not be parsed as JSON." });
  });
});

describe("the address a validation is for", () => {
  test("by default the caller's own, from the socket", async () => {
    const license = await newLicense({ maxIps: 3 });
    const body = await readJson(await validate({ key: license.key }));
    expect(body).toMatchObject({ code: "VALID", ips: { count: 1, max: 3 } });
    const { ips } = await readJson(await api(`/api/v1/licenses/${license.id}/ips`, "GET"));
    expect(ips).toEqual([
      { ip: "127.0.0.1", firstSeenAt: expect.stringMatching(ISO), lastSeenAt: expect.stringMatching(ISO) },
    ]);
  });

  test("X-Forwarded-For is ignored without TRUST_PROXY", async () => {
    const license = await newLicense({ maxIps: 1 });
    for (const forwarded of ["203.0.113.9", "203.0.113.9, 198.51.100.3"]) {
      const body = await readJson(await validate({ key: license.key }, { "x-forwarded-for": forwarded }));
      expect(body).toMatchObject({ code: "VALID", ips: { count: 1, max: 1 } });
    }
    expect(await registeredIps(t, license.id)).toEqual(["127.0.0.1"]);
  });

  describe("with TRUST_PROXY=true", () => {
    let proxied: TestApp;
    let pw: World;
    let proxiedBase: string;
    beforeAll(async () => {
      proxied = await startTestApp({ env: { TRUST_PROXY: "true" } });
      pw = await licenseWorld(proxied.ctx);
      proxiedBase = proxied.listen();
    });
    afterAll(() => proxied.close());

    test("the last X-Forwarded-For entry (the one our proxy appended) is the address", async () => {
      const license = await licenseIn(proxied, pw, { maxIps: 5 });
      const send = (forwarded?: string) =>
        validateAt(proxiedBase, { key: license.key }, forwarded ? { "x-forwarded-for": forwarded } : {});
      expect((await readJson(await send("198.51.100.1, 203.0.113.7"))).code).toBe("VALID");
      expect(await registeredIps(proxied, license.id)).toEqual(["203.0.113.7"]);
      // IPv4-mapped IPv6 is the same IPv4 address.
      expect((await readJson(await send("::ffff:203.0.113.7"))).ips).toEqual({ count: 1, max: 5 });
      expect((await readJson(await send(" 2001:DB8::7 "))).code).toBe("VALID");
      // No header, or one that is not an address: the socket's.
      expect((await readJson(await send())).code).toBe("VALID");
      expect((await readJson(await send("not-an-address"))).code).toBe("VALID");
      expect(await registeredIps(proxied, license.id)).toEqual(["127.0.0.1", "2001:db8::7", "203.0.113.7"]);
    });
  });

  describe("a body ip", () => {
    test("without an x-api-key → 422 errors.ip, nothing registered", async () => {
      const license = await newLicense({ maxIps: 3 });
      const response = await validate({ key: license.key, ip: "192.0.2.10" });
      expect(response.status).toBe(422);
      expect(await readJson(response)).toEqual({
        message: "The ip field is only accepted with an x-api-key.",
        errors: { ip: ["The ip field is only accepted with an x-api-key."] },
      });
      expect(await registeredIps(t, license.id)).toEqual([]);
    });

    test("with a wrong or deleted x-api-key → 401 Invalid API key.", async () => {
      const license = await newLicense({ maxIps: 3 });
      const deleted = await apiKeyFor(t.ctx, null);
      await deleteApiKey(t.ctx, deleted.id);
      for (const key of ["dpk_wrong", deleted.key]) {
        const response = await validate({ key: license.key, ip: "192.0.2.10" }, { "x-api-key": key });
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toBe("ApiKey");
        expect(await readJson(response)).toEqual({ message: "Invalid API key." });
      }
      expect(await registeredIps(t, license.id)).toEqual([]);
    });

    test("with another creator's key → 403, nothing registered", async () => {
      const license = await newLicense({ maxIps: 3 });
      const response = await validate({ key: license.key, ip: "192.0.2.10" }, { "x-api-key": w.keyB });
      expect(response.status).toBe(403);
      expect(await readJson(response)).toEqual({ message: "This API key may not act for this license." });
      expect(await registeredIps(t, license.id)).toEqual([]);
    });

    test("with a key that may act for the license → that address is checked and registered", async () => {
      const license = await newLicense({ maxIps: 3 });
      for (const [key, ip] of [
        [w.keyA, "192.0.2.10"],
        [w.globalKey, "2001:db8::10"],
      ] as const) {
        const body = await readJson(await validate({ key: license.key, ip }, { "x-api-key": key }));
        expect({ ip, code: body.code }).toEqual({ ip, code: "VALID" });
      }
      expect(await registeredIps(t, license.id)).toEqual(["192.0.2.10", "2001:db8::10"]);
    });

    test("that is not an address → 422 errors.ip", async () => {
      const license = await newLicense();
      for (const ip of ["999.1.1.1", "localhost", "fe80::1%eth0", "' OR 1=1--"]) {
        const response = await validate({ key: license.key, ip }, { "x-api-key": w.globalKey });
        expect({ ip, status: response.status }).toEqual({ ip, status: 422 });
        expect(await readJson(response)).toEqual({
          message: "The ip field must be a valid IP address.",
          errors: { ip: ["The ip field must be a valid IP address."] },
        });
      }
    });

    test("IPv4-mapped IPv6 ::ffff:10.1.2.3 counts as 10.1.2.3", async () => {
      const license = await newLicense({ maxIps: 1 });
      await registerIp(license, "10.1.2.3");
      for (const ip of ["::ffff:10.1.2.3", "::FFFF:10.1.2.3", "::ffff:a01:203", "[::ffff:10.1.2.3]"]) {
        const body = await readJson(await validate({ key: license.key, ip }, { "x-api-key": w.globalKey }));
        expect({ ip, body }).toMatchObject({ ip, body: { code: "VALID", ips: { count: 1, max: 1 } } });
      }
      expect(await registeredIps(t, license.id)).toEqual(["10.1.2.3"]);
    });
  });
});

describe("validation is read-mostly", () => {
  const seen = async (licenseId: string) => {
    const [row] = await t.ctx.db
      .select({ firstSeenAt: licenseIps.firstSeenAt, lastSeenAt: licenseIps.lastSeenAt })
      .from(licenseIps)
      .where(and(eq(licenseIps.licenseId, licenseId), eq(licenseIps.ip, "127.0.0.1")));
    if (!row) throw new Error("127.0.0.1 is not registered");
    return row;
  };
  const setLastSeen = (licenseId: string, msAgo: number) =>
    t.ctx.db
      .update(licenseIps)
      .set({ lastSeenAt: new Date(Date.now() - msAgo) })
      .where(eq(licenseIps.licenseId, licenseId));

  test("a known address seen within the last minute is not written again", async () => {
    const license = await newLicense();
    expect((await readJson(await validate({ key: license.key }))).code).toBe("VALID");
    const first = await seen(license.id);
    await Bun.sleep(20);
    expect((await readJson(await validate({ key: license.key }))).code).toBe("VALID");
    expect(await seen(license.id)).toEqual(first);

    await setLastSeen(license.id, 30_000);
    const halfAMinute = await seen(license.id);
    expect((await readJson(await validate({ key: license.key }))).code).toBe("VALID");
    expect(await seen(license.id)).toEqual(halfAMinute);
  });

  test("after more than a minute a validation refreshes lastSeenAt (and only that)", async () => {
    const license = await newLicense();
    expect((await readJson(await validate({ key: license.key }))).code).toBe("VALID");
    await setLastSeen(license.id, 2 * 60_000);
    const stale = await seen(license.id);
    const before = Date.now();
    expect((await readJson(await validate({ key: license.key }))).code).toBe("VALID");
    const fresh = await seen(license.id);
    expect(fresh.firstSeenAt).toEqual(stale.firstSeenAt);
    expect(fresh.lastSeenAt.getTime()).toBeGreaterThan(stale.lastSeenAt.getTime());
    expect(fresh.lastSeenAt.getTime()).toBeGreaterThanOrEqual(before - 5000);
  });
});

describe("50 simultaneous validations from 50 new addresses never register more than maxIps", () => {
  /**
   * The race, through a listening server with TRUST_PROXY so each request comes from its own address.
   * How requests interleave varies from run to run, so it is run for several licenses: without the
   * row lock, a single round can happen to pass.
   */
  async function raceRounds(app: TestApp, rounds = 5) {
    const rw = await licenseWorld(app.ctx);
    const url = app.listen();
    for (let round = 0; round < rounds; round++)
      await race(app, url, await licenseIn(app, rw, { maxIps: 3 }));
  }

  async function race(app: TestApp, url: string, license: License) {
    const addresses = Array.from({ length: 50 }, (_, i) => `10.50.${Math.floor(i / 10)}.${(i % 10) + 1}`);
    const answers = await Promise.all(
      addresses.map(async (ip) => {
        const response = await validateAt(url, { key: license.key }, { "x-forwarded-for": ip });
        return { ip, status: response.status, body: await readJson(response) };
      }),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const valid = answers.filter((a) => a.body.code === "VALID");
    const refused = answers.filter((a) => a.body.code === "TOO_MANY_IPS");
    expect(valid).toHaveLength(3);
    expect(refused).toHaveLength(47);
    for (const answer of answers) {
      expect(answer.body.ips.max).toBe(3);
      expect(answer.body.ips.count).toBeLessThanOrEqual(3);
    }
    for (const answer of refused) expect(answer.body.ips.count).toBe(3);
    // Exactly the three that were told VALID are registered.
    expect(await registeredIps(app, license.id)).toEqual(valid.map((a) => a.ip).toSorted());
    const [rows] = await app.ctx.db
      .select({ n: sql<number>`count(*)::int` })
      .from(licenseIps)
      .where(eq(licenseIps.licenseId, license.id));
    expect(rows?.n).toBe(3);
    // The winners stay valid; everyone else stays out.
    const winner = valid[0]?.ip ?? "";
    const again = await validateAt(url, { key: license.key }, { "x-forwarded-for": winner });
    expect((await readJson(again)).code).toBe("VALID");
    const loser = refused[0]?.ip ?? "";
    const still = await validateAt(url, { key: license.key }, { "x-forwarded-for": loser });
    expect((await readJson(still)).code).toBe("TOO_MANY_IPS");
  }

  testOnBothDatabases(raceRounds, { env: { TRUST_PROXY: "true" }, timeoutMs: 60_000 });
});

describe("DELETE /api/licenses/{id}/ips: the owner resets their addresses", () => {
  let ownerToken: string;
  beforeAll(async () => {
    ownerToken = await tokenFor(t.ctx, w.owner);
  });
  const reset = (id: string, token?: string) =>
    t.request(`/api/licenses/${id}/ips`, { method: "DELETE", headers: token ? bearer(token) : {} });

  test("someone else's token → 404, no token → 401; neither forgets anything", async () => {
    const license = await newLicense({ maxIps: 2 });
    await registerIp(license, "192.0.2.1");
    const strangerToken = await tokenFor(t.ctx, await createUser(t.ctx));
    const creatorToken = await tokenFor(t.ctx, w.creatorA);
    for (const token of [strangerToken, creatorToken]) {
      const response = await reset(license.id, token);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "License not found." });
    }
    const anonymous = await reset(license.id);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe("Bearer");
    expect(await readJson(anonymous)).toEqual({ message: "Unauthenticated." });
    for (const id of ["0190f3a0-0000-7000-8000-000000000000", "abc"]) {
      const unknown = await reset(id, ownerToken);
      expect(unknown.status).toBe(404);
      expect(await readJson(unknown)).toEqual({ message: "License not found." });
    }
    expect(await registeredIps(t, license.id)).toEqual(["192.0.2.1"]);
  });

  test("the id in upper case names the same license (a uuid's case does not matter)", async () => {
    const license = await newLicense({ maxIps: 2 });
    await registerIp(license, "192.0.2.77");
    const response = await reset(license.id.toUpperCase(), ownerToken);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(await registeredIps(t, license.id)).toEqual([]);
  });

  test("204 and the addresses are gone; 3 times a day, then 429 with Retry-After", async () => {
    const license = await newLicense({ maxIps: 2 });
    for (let i = 1; i <= 3; i++) {
      await registerIp(license, `192.0.2.${i}`);
      const response = await reset(license.id, ownerToken);
      expect({ attempt: i, status: response.status }).toEqual({ attempt: i, status: 204 });
      expect(await response.text()).toBe("");
      expect(await registeredIps(t, license.id)).toEqual([]);
    }

    await registerIp(license, "192.0.2.9");
    const fourth = await reset(license.id, ownerToken);
    expect(fourth.status).toBe(429);
    expect(await readJson(fourth)).toEqual({ message: "Too Many Attempts." });
    const retryAfter = fourth.headers.get("retry-after") ?? "";
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(24 * 60 * 60);
    // A refused reset forgets nothing.
    expect(await registeredIps(t, license.id)).toEqual(["192.0.2.9"]);

    // Another license of the same owner has its own allowance.
    const other = await newLicense();
    expect((await reset(other.id, ownerToken)).status).toBe(204);

    // Once the oldest reset is more than a day old, one more is allowed.
    await t.ctx.db
      .update(licenseIpResets)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(
        eq(
          licenseIpResets.id,
          sql`(SELECT min(id) FROM ${licenseIpResets} WHERE ${licenseIpResets.licenseId} = ${license.id})`,
        ),
      );
    expect((await reset(license.id, ownerToken)).status).toBe(204);
    expect(await registeredIps(t, license.id)).toEqual([]);
    expect((await reset(license.id, ownerToken)).status).toBe(429);
  });
});
