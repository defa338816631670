import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { licenseIps, licenses } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import { createProduct, type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";

/**
 * A product's license policies (/api/products/{product}/license-policies): their CRUD, licenses made
 * from one on both license-creating APIs, licenses following a change except where they name a setting
 * themselves, and a change racing new licenses on both databases.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let t: TestApp;
let w: LicenseWorld;
let vendor: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await licenseWorld(t.ctx);
  vendor = await tokenFor(t.ctx, w.creatorA);
});
afterAll(() => t.close());

const call = (app: TestApp, token: string, method: string, path: string, body?: unknown) =>
  app.request(path, {
    method,
    headers: { ...bearer(token), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const policies = (productId = w.productA.id) => `/api/products/${productId}/license-policies`;
async function newPolicy(body: Record<string, unknown>, app = t, token = vendor, productId = w.productA.id) {
  const response = await call(app, token, "POST", `/api/products/${productId}/license-policies`, body);
  expect(response.status).toBe(201);
  return (await readJson(response)).data;
}
const apiLicense = (fields: Record<string, unknown>) => licenseIn(t, w, fields);
const readLicense = async (id: string) =>
  (await readJson(await t.request(`/api/v1/licenses/${id}`, { headers: { "x-api-key": w.globalKey } })))
    .licenses[0];

describe("CRUD", () => {
  test("POST → 201 {data: policy}; GET one and the list; defaults are a plain license's", async () => {
    const response = await call(t, vendor, "POST", policies(), {
      name: "  Pro  ",
      max_machines: 3,
      floating: true,
      duration_seconds: 86_400 * 365,
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: expect.any(Number),
      product_id: w.productA.id,
      name: "Pro",
      max_machines: 3,
      max_ips: null,
      floating: true,
      heartbeat_seconds: 600,
      duration_seconds: 31_536_000,
      machine_file_ttl_max: null,
      license_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const one = await readJson(await call(t, vendor, "GET", `${policies()}/${data.id}`));
    expect(one).toEqual({ data });
    const list = await readJson(await call(t, vendor, "GET", policies()));
    expect(list.data.map((p: { name: string }) => p.name)).toContain("Pro");
  });

  test("bad input → 422 per field, nothing made; a taken name (any case) → 422 on name", async () => {
    const before = (await readJson(await call(t, vendor, "GET", policies()))).data.length;
    const bad = await call(t, vendor, "POST", policies(), {
      name: "",
      max_ips: 0,
      max_machines: -1,
      heartbeat_seconds: 5,
      duration_seconds: 0,
      machine_file_ttl_max: 60,
    });
    expect(bad.status).toBe(422);
    const body = await readJson(bad);
    expect(Object.keys(body.errors).sort()).toEqual(
      [
        "duration_seconds",
        "heartbeat_seconds",
        "machine_file_ttl_max",
        "max_ips",
        "max_machines",
        "name",
      ].sort(),
    );
    expect(body.errors.max_ips).toEqual(["The max ips field must be at least 1."]);
    const floating = await call(t, vendor, "POST", policies(), {
      name: "F",
      floating: true,
      heartbeat_seconds: null,
    });
    expect(floating.status).toBe(422);
    expect(Object.keys((await readJson(floating)).errors)).toEqual(["heartbeat_seconds"]);
    await newPolicy({ name: "Basic" });
    const taken = await call(t, vendor, "POST", policies(), { name: "BASIC" });
    expect(taken.status).toBe(422);
    expect((await readJson(taken)).errors).toEqual({ name: ["The name has already been taken."] });
    expect((await readJson(await call(t, vendor, "GET", policies()))).data.length).toBe(before + 1);
  });

  test("another product's policy is a 404; a stranger's token 404 / 403, none 401", async () => {
    const policy = await newPolicy({ name: "Team" });
    const otherToken = await tokenFor(t.ctx, w.creatorB);
    const other = await call(t, otherToken, "GET", `${policies(w.productB.id)}/${policy.id}`);
    expect(other.status).toBe(404);
    expect(await readJson(other)).toEqual({ message: "License policy not found." });
    const stranger = await call(t, otherToken, "PATCH", `${policies()}/${policy.id}`, { max_ips: 9 });
    expect([403, 404]).toContain(stranger.status);
    expect((await t.request(policies())).status).toBe(401);
    expect(
      (await readJson(await call(t, vendor, "GET", `${policies()}/${policy.id}`))).data.max_ips,
    ).toBeNull();
  });

  test("DELETE → 204; its licenses keep their settings, as their own", async () => {
    const policy = await newPolicy({ name: "Gone", max_machines: 4 });
    const license = await apiLicense({ policy: String(policy.id) });
    expect((await call(t, vendor, "DELETE", `${policies()}/${policy.id}`)).status).toBe(204);
    expect((await call(t, vendor, "GET", `${policies()}/${policy.id}`)).status).toBe(404);
    const after = await readLicense(license.id);
    expect(after.maxMachines).toBe(4);
    expect(after.policyId).toBeUndefined();
  });
});

describe("a license made from a policy", () => {
  test("POST /api/v1/licenses {policy}: its settings and expiry; what the request names is its own", async () => {
    const policy = await newPolicy({
      name: "Desktop",
      max_machines: 2,
      heartbeat_seconds: 3600,
      duration_seconds: 86_400,
      machine_file_ttl_max: 7200,
    });
    const before = Date.now();
    const license = await apiLicense({ policy: String(policy.id) });
    expect(license).toMatchObject({
      maxIps: null,
      maxMachines: 2,
      floating: false,
      heartbeatSeconds: 3600,
      machineFileTtlMax: 7200,
      policyId: String(policy.id),
    });
    const expires = Date.parse(license.expires as string);
    expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 1000);

    const own = await apiLicense({ policy: policy.id, maxMachines: 5, maxIps: 2, expires: null });
    expect(own).toMatchObject({ maxIps: 2, maxMachines: 5, heartbeatSeconds: 3600, expires: null });
  });

  test("without a policy a license reads exactly as before (no policyId)", async () => {
    const plain = await apiLicense({});
    expect(plain.maxIps).toBe(1);
    expect(plain.policyId).toBeUndefined();
    expect(Object.keys(plain).sort()).toEqual(
      ["createdAt", "creatorId", "expires", "id", "key", "maxIps", "productId", "updatedAt", "userId"].sort(),
    );
  });

  test("another product's policy, or no such policy → 422 on policy, no license", async () => {
    const foreign = await newPolicy({ name: "B's" }, t, await tokenFor(t.ctx, w.creatorB), w.productB.id);
    const count = async () => (await t.ctx.db.select({ id: licenses.id }).from(licenses)).length;
    const before = await count();
    for (const policy of [String(foreign.id), "999999", "abc"]) {
      const response = await t.request("/api/v1/licenses", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": w.globalKey },
        body: JSON.stringify({
          ownerId: String(w.owner.id),
          creatorId: String(w.creatorA.id),
          productId: String(w.productA.id),
          policy,
        }),
      });
      expect(response.status).toBe(422);
      expect((await readJson(response)).errors).toEqual({ policy: ["The selected policy is invalid."] });
    }
    expect(await count()).toBe(before);
  });

  test("the dashboard's POST /api/products/{p}/licenses {policy} takes it too", async () => {
    await apiLicense({}); // the owner becomes someone the vendor may license
    const policy = await newPolicy({ name: "Floating", floating: true, max_machines: 10 });
    const response = await call(t, vendor, "POST", `/api/products/${w.productA.id}/licenses`, {
      owner_email: w.owner.email,
      policy: policy.id,
      max_ips: 4,
    });
    expect(response.status).toBe(201);
    const { data } = await readJson(response);
    expect(data).toMatchObject({
      policy_id: policy.id,
      max_machines: 10,
      floating: true,
      heartbeat_seconds: 600,
      max_ips: 4,
    });
    const wrong = await call(t, vendor, "POST", `/api/products/${w.productA.id}/licenses`, {
      owner_email: w.owner.email,
      policy: 999_999,
    });
    expect(wrong.status).toBe(422);
    expect((await readJson(wrong)).errors).toEqual({ policy: ["The selected policy is invalid."] });
  });
});

describe("changing a policy changes its licenses", () => {
  test("every setting a license does not name follows; named ones (at creation or by PATCH) stay", async () => {
    const policy = await newPolicy({ name: "Follow", max_machines: 2, max_ips: 3 });
    const follows = await apiLicense({ policy: String(policy.id) });
    const ownMachines = await apiLicense({ policy: String(policy.id), maxMachines: 7 });
    const patched = await apiLicense({ policy: String(policy.id) });
    const patch = await t.request(`/api/v1/licenses/${patched.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": w.globalKey },
      body: JSON.stringify({ maxIps: null }),
    });
    expect(patch.status).toBe(200);
    const plain = await apiLicense({ maxMachines: 2, maxIps: 3 });
    // Addresses beyond a lower limit are forgotten, the most recently seen kept.
    await t.ctx.db.insert(licenseIps).values([
      { licenseId: follows.id, ip: "192.0.2.1", lastSeenAt: new Date(Date.now() - 3000) },
      { licenseId: follows.id, ip: "192.0.2.2", lastSeenAt: new Date(Date.now() - 2000) },
      { licenseId: follows.id, ip: "192.0.2.3", lastSeenAt: new Date(Date.now() - 1000) },
    ]);

    const response = await call(t, vendor, "PATCH", `${policies()}/${policy.id}`, {
      max_machines: 5,
      max_ips: 1,
      floating: true,
    });
    expect(response.status).toBe(200);
    expect((await readJson(response)).data).toMatchObject({
      max_machines: 5,
      max_ips: 1,
      floating: true,
      heartbeat_seconds: 600,
      license_count: 3,
    });
    expect(await readLicense(follows.id)).toMatchObject({
      maxMachines: 5,
      maxIps: 1,
      floating: true,
      heartbeatSeconds: 600,
    });
    expect(await readLicense(ownMachines.id)).toMatchObject({ maxMachines: 7, maxIps: 1, floating: true });
    expect(await readLicense(patched.id)).toMatchObject({ maxMachines: 5, maxIps: null, floating: true });
    expect(await readLicense(plain.id)).toMatchObject({ maxMachines: 2, maxIps: 3, floating: false });
    const kept = await t.ctx.db
      .select({ ip: licenseIps.ip })
      .from(licenseIps)
      .where(eq(licenseIps.licenseId, follows.id));
    expect(kept.map((row) => row.ip)).toEqual(["192.0.2.3"]);
  });

  test("a bad change → 422, neither the policy nor its licenses change", async () => {
    const policy = await newPolicy({ name: "Steady", max_machines: 2 });
    const license = await apiLicense({ policy: String(policy.id) });
    const response = await call(t, vendor, "PATCH", `${policies()}/${policy.id}`, {
      max_machines: 2,
      max_ips: 0,
    });
    expect(response.status).toBe(422);
    expect(Object.keys((await readJson(response)).errors)).toEqual(["max_ips"]);
    expect((await readLicense(license.id)).maxIps).toBeNull();
  });
});

describe("a policy change racing new licenses leaves none with the old numbers", () => {
  async function race(app: TestApp) {
    const rw = await licenseWorld(app.ctx);
    const token = await tokenFor(app.ctx, rw.creatorA);
    for (let round = 0; round < 3; round++) {
      const policy = await newPolicy({ name: `Race ${round}`, max_machines: 1 }, app, token, rw.productA.id);
      const made = Array.from({ length: 20 }, () => licenseIn(app, rw, { policy: String(policy.id) }));
      const change = call(
        app,
        token,
        "PATCH",
        `/api/products/${rw.productA.id}/license-policies/${policy.id}`,
        {
          max_machines: 9,
        },
      );
      const [changed] = await Promise.all([change, ...made]);
      expect(changed.status).toBe(200);
      const rows = await app.ctx.db
        .select({ maxMachines: licenses.maxMachines })
        .from(licenses)
        .where(eq(licenses.policyId, policy.id));
      expect(rows.length).toBe(20);
      expect(rows.every((row) => row.maxMachines === 9)).toBe(true);
    }
  }
  testOnBothDatabases(race, { timeoutMs: 90_000 });
});

test("the product's owner with a narrowed token, or a deleted product: no new policy", async () => {
  const narrowed = await tokenFor(t.ctx, w.creatorA, ["versions.publish"]);
  expect((await call(t, narrowed, "POST", policies(), { name: "No" })).status).toBe(403);
  const product = await createProduct(t.ctx, w.creatorA);
  expect((await call(t, vendor, "GET", policies(product.id))).status).toBe(200);
});

describe("a license moved to another policy, or off one, by PATCH", () => {
  const v1Patch = (id: string, body: unknown, key = w.globalKey) =>
    t.request(`/api/v1/licenses/${id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify(body),
    });
  const row = async (id: string) => (await t.ctx.db.select().from(licenses).where(eq(licenses.id, id)))[0];

  test("PATCH /api/v1/licenses/{id} {policy}: what it did not name takes the new policy's values and follows it", async () => {
    const desk = await newPolicy({ name: "Desk", max_machines: 2, max_ips: 3, duration_seconds: 86_400 });
    const site = await newPolicy({
      name: "Site",
      max_machines: 8,
      floating: true,
      machine_file_ttl_max: 7200,
    });
    const license = await apiLicense({ policy: String(desk.id), maxIps: 5 });
    // Addresses beyond the new policy's limit would be forgotten; this license names its own.
    const response = await v1Patch(license.id, { policy: String(site.id) });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body).toMatchObject({
      id: license.id,
      policyId: String(site.id),
      maxMachines: 8,
      maxIps: 5,
      expires: license.expires,
    });
    expect(await row(license.id)).toMatchObject({
      policyId: site.id,
      policyOverrides: ["maxIps"],
      maxMachines: 8,
      maxIps: 5,
      floating: true,
      heartbeatSeconds: 600,
      machineFileTtlMax: 7200,
    });
    // It follows its new policy, not the old one.
    expect((await call(t, vendor, "PATCH", `${policies()}/${site.id}`, { max_machines: 9 })).status).toBe(
      200,
    );
    expect((await call(t, vendor, "PATCH", `${policies()}/${desk.id}`, { max_machines: 1 })).status).toBe(
      200,
    );
    expect(await readLicense(license.id)).toMatchObject({ maxMachines: 9, maxIps: 5 });
    expect(
      (await readJson(await call(t, vendor, "GET", `${policies()}/${site.id}`))).data.license_count,
    ).toBe(1);
  });

  test("{policy: null} detaches it: its values stay as its own, a change to the policy no longer reaches it", async () => {
    const policy = await newPolicy({ name: "Leaving", max_machines: 4, floating: true });
    const license = await apiLicense({ policy: String(policy.id) });
    const response = await v1Patch(license.id, { policy: null });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body.policyId).toBeUndefined();
    expect(body.maxMachines).toBe(4);
    expect(await row(license.id)).toMatchObject({
      policyId: null,
      policyOverrides: [],
      maxMachines: 4,
      floating: true,
      heartbeatSeconds: 600,
    });
    expect((await call(t, vendor, "PATCH", `${policies()}/${policy.id}`, { max_machines: 1 })).status).toBe(
      200,
    );
    expect((await row(license.id))?.maxMachines).toBe(4);
  });

  test("settings named beside the policy are the license's own; a lower inherited max_ips forgets addresses", async () => {
    const policy = await newPolicy({ name: "Narrow", max_machines: 2, max_ips: 1 });
    const license = await apiLicense({ maxIps: 3 });
    await t.ctx.db.insert(licenseIps).values([
      { licenseId: license.id, ip: "198.51.100.1", lastSeenAt: new Date(Date.now() - 3000) },
      { licenseId: license.id, ip: "198.51.100.2", lastSeenAt: new Date(Date.now() - 1000) },
    ]);
    const response = await v1Patch(license.id, { policy: policy.id, maxMachines: 6 });
    expect(response.status).toBe(200);
    expect(await row(license.id)).toMatchObject({
      policyId: policy.id,
      policyOverrides: ["maxMachines"],
      maxMachines: 6,
      maxIps: 1,
    });
    const kept = await t.ctx.db
      .select({ ip: licenseIps.ip })
      .from(licenseIps)
      .where(eq(licenseIps.licenseId, license.id));
    expect(kept.map((r) => r.ip)).toEqual(["198.51.100.2"]);
  });

  test("another product's policy, none, or not an id → 422 on policy; nothing changes", async () => {
    const foreign = await newPolicy(
      { name: "Theirs", max_machines: 1 },
      t,
      await tokenFor(t.ctx, w.creatorB),
      w.productB.id,
    );
    const license = await apiLicense({ maxMachines: 3 });
    const before = await row(license.id);
    for (const policy of [String(foreign.id), 999_999, "abc"]) {
      const response = await v1Patch(license.id, { policy, maxIps: 7 });
      expect(response.status).toBe(422);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(await readJson(response)).toEqual({
        message: "The selected policy is invalid.",
        errors: { policy: ["The selected policy is invalid."] },
      });
    }
    // Every field's failure at once.
    const both = await v1Patch(license.id, { policy: "abc", maxIps: 0 });
    expect(Object.keys((await readJson(both)).errors).sort()).toEqual(["maxIps", "policy"]);
    expect(await row(license.id)).toEqual(before);
  });

  test("a change that moves the license to another product takes that product's policy only", async () => {
    const mine = await newPolicy({ name: "Mine", max_machines: 2 });
    const theirs = await newPolicy(
      { name: "Over there", max_machines: 5 },
      t,
      await tokenFor(t.ctx, w.creatorB),
      w.productB.id,
    );
    const license = await apiLicense({ policy: String(mine.id) });
    const wrong = await v1Patch(license.id, { productId: String(w.productB.id), policy: String(mine.id) });
    expect(wrong.status).toBe(422);
    expect((await readJson(wrong)).errors).toEqual({ policy: ["The selected policy is invalid."] });
    expect((await row(license.id))?.productId).toBe(w.productA.id);
    const moved = await v1Patch(license.id, { productId: String(w.productB.id), policy: String(theirs.id) });
    expect(moved.status).toBe(200);
    expect(await readJson(moved)).toMatchObject({
      productId: String(w.productB.id),
      policyId: String(theirs.id),
      maxMachines: 5,
    });
  });

  test("PATCH /api/products/{p}/licenses/{l} {policy} (the dashboard's): the same rules, snake_case", async () => {
    const first = await newPolicy({ name: "Page one", max_machines: 2 });
    const second = await newPolicy({ name: "Page two", max_machines: 6, max_ips: 2 });
    const license = await apiLicense({ policy: String(first.id) });
    const path = `/api/products/${w.productA.id}/licenses/${license.id}`;
    const moved = await call(t, vendor, "PATCH", path, { policy: second.id, max_machines: 3 });
    expect(moved.status).toBe(200);
    expect((await readJson(moved)).data).toMatchObject({
      id: license.id,
      policy_id: second.id,
      max_machines: 3,
      max_ips: 2,
    });
    expect((await row(license.id))?.policyOverrides).toEqual(["maxMachines"]);

    const foreign = await newPolicy({ name: "Page B" }, t, await tokenFor(t.ctx, w.creatorB), w.productB.id);
    for (const policy of [foreign.id, "x1"]) {
      const refused = await call(t, vendor, "PATCH", path, { policy });
      expect(refused.status).toBe(422);
      expect((await readJson(refused)).errors).toEqual({ policy: ["The selected policy is invalid."] });
    }
    expect((await row(license.id))?.policyId).toBe(second.id);

    const detached = await call(t, vendor, "PATCH", path, { policy: null });
    expect(detached.status).toBe(200);
    expect((await readJson(detached)).data).toMatchObject({ policy_id: null, max_machines: 3, max_ips: 2 });
  });
});
