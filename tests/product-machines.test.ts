import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import { machines } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import {
  createProduct,
  createUser,
  type LicenseWorld,
  licenseIn,
  licenseWorld,
  tokenFor,
} from "./helpers/factories.ts";
import { fetchJwks, type Jwks } from "./helpers/verify-signature.ts";

/**
 * A vendor supporting a customer's machines from the dashboard (docs/vendors.md, Machines):
 * /api/products/{product}/licenses/{license}/machines lists them with the file ceiling, frees a seat
 * (a valid license file keeps it unless forced) and exchanges an air-gapped request for a file of the
 * lifetime the vendor chose, cut to the ceiling. Through a listening server on a real database.
 */

setDefaultTimeout(30_000);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY = 86_400;

let t: TestApp;
let w: LicenseWorld;
let base: string;
let jwks: Jwks;
let vendorToken: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await licenseWorld(t.ctx);
  base = t.listen();
  jwks = await fetchJwks(base);
  vendorToken = await tokenFor(t.ctx, w.creatorA);
}, 120_000);
afterAll(() => t.close());

interface License {
  id: string;
  key: string;
}
const newLicense = (fields: Record<string, unknown> = {}) => licenseIn(t, w, fields) as Promise<License>;
const machinesPath = (licenseId: string, product = w.productA.id) =>
  `/api/products/${product}/licenses/${licenseId}/machines`;
const call = (path: string, method = "GET", body?: unknown, token = vendorToken) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...bearer(token) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const encode = (request: unknown) => Buffer.from(JSON.stringify(request)).toString("base64");

async function activate(key: string, fingerprint: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ key, fingerprint, ...extra }),
  });
  expect(response.status).toBe(201);
  return (await readJson(response)).machine as { id: string };
}

describe("GET …/licenses/{license}/machines", () => {
  test("the machines with name, platform, last seen and alive, and the license file's ceiling", async () => {
    const license = await newLicense({ maxMachines: 3 });
    const first = await activate(license.key, "fp-1", { name: "Ada's laptop", platform: "darwin-arm64" });
    await activate(license.key, "fp-2");
    const response = await call(machinesPath(license.id));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    const body = await readJson(response);
    expect(body).toEqual({
      data: [
        {
          id: first.id,
          fingerprint: "fp-1",
          name: "Ada's laptop",
          platform: "darwin-arm64",
          hostname: null,
          created_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
          alive: true,
          file_expires_at: null,
        },
        expect.objectContaining({ fingerprint: "fp-2", name: null, alive: true }),
      ],
      // A node-locked license without a ceiling of its own: a week.
      license_file_ttl_max: 7 * DAY,
    });
    const own = await newLicense({ maxMachines: 1, machineFileTtlMax: 2 * DAY });
    expect((await readJson(await call(machinesPath(own.id)))).license_file_ttl_max).toBe(2 * DAY);
    const unbounded = await newLicense();
    expect(await readJson(await call(machinesPath(unbounded.id)))).toEqual({
      data: [],
      license_file_ttl_max: 365 * DAY,
    });
  });

  test("who may: another vendor or a narrowed token 403 (the product is visible), admin 200", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const stranger = await tokenFor(t.ctx, await createUser(t.ctx, { role: "vendor" }));
    const narrowed = await tokenFor(t.ctx, w.creatorA, ["versions.publish"]);
    const admin = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
    const refused = await call(machinesPath(license.id), "GET", undefined, stranger);
    expect(refused.status).toBe(403);
    expect(await readJson(refused)).toEqual({ message: "This action is unauthorized." });
    expect((await call(machinesPath(license.id), "GET", undefined, narrowed)).status).toBe(403);
    expect((await call(machinesPath(license.id), "GET", undefined, admin)).status).toBe(200);
    // A license of another product, under this product's path: not found.
    const elsewhere = await createProduct(t.ctx, w.creatorA);
    const notHere = await call(machinesPath(license.id, elsewhere.id));
    expect(notHere.status).toBe(404);
    expect(await readJson(notHere)).toEqual({ message: "License not found." });
    expect((await fetch(`${base}${machinesPath(license.id)}`)).status).toBe(401);
    const notAnId = await call(machinesPath("not-a-uuid"));
    expect(notAnId.status).toBe(404);
    expect(await readJson(notAnId)).toEqual({ message: "License not found." });
  });
});

describe("DELETE …/machines/{machine}", () => {
  test("frees the seat; a machine whose file is valid keeps it (409) unless ?force=true", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const online = await activate(license.key, "online");
    const offline = await activate(license.key, "vault", { offline: true });

    const freed = await call(`${machinesPath(license.id)}/${online.id}`, "DELETE");
    expect(freed.status).toBe(204);
    expect(await freed.text()).toBe("");
    const gone = await call(`${machinesPath(license.id)}/${online.id}`, "DELETE");
    expect(gone.status).toBe(404);
    expect(await readJson(gone)).toEqual({ message: "Machine not found." });

    const held = await call(`${machinesPath(license.id)}/${offline.id}`, "DELETE");
    expect(held.status).toBe(409);
    expect(await readJson(held)).toEqual({
      code: "MACHINE_FILE_VALID",
      message: expect.stringContaining("holds its seat until its license file expires"),
      fileExpiresAt: expect.stringMatching(ISO),
    });
    const badForce = await call(`${machinesPath(license.id)}/${offline.id}?force=yes`, "DELETE");
    expect(badForce.status).toBe(422);
    expect((await readJson(badForce)).errors).toEqual({ force: ["The force field must be true or false."] });
    const forced = await call(`${machinesPath(license.id)}/${offline.id}?force=true`, "DELETE");
    expect(forced.status).toBe(204);
    expect(await t.ctx.db.select().from(machines).where(eq(machines.licenseId, license.id))).toEqual([]);
  });

  test("another license's machine 404, another vendor 403: nothing deleted", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const other = await newLicense({ maxMachines: 1 });
    const machine = await activate(other.key, "theirs");
    expect((await call(`${machinesPath(license.id)}/${machine.id}`, "DELETE")).status).toBe(404);
    const stranger = await tokenFor(t.ctx, w.creatorB);
    expect(
      (await call(`${machinesPath(other.id)}/${machine.id}`, "DELETE", undefined, stranger)).status,
    ).toBe(403);
    expect(await t.ctx.db.select().from(machines).where(eq(machines.id, machine.id))).toHaveLength(1);
  });
});

describe("POST …/machines/offline", () => {
  test("the vendor chooses the file's lifetime; longer than the ceiling is cut to it", async () => {
    const license = await newLicense({ maxMachines: 2, machineFileTtlMax: 3 * DAY });
    const request = encode({ v: 1, key: license.key, fingerprint: "air-1", name: "Plant PC" });
    const before = Date.now();
    const response = await call(`${machinesPath(license.id)}/offline`, "POST", { request, ttl: DAY });
    expect(response.status).toBe(201);
    const body = await readJson(response);
    expect(body).toEqual({
      data: {
        machine: expect.objectContaining({ fingerprint: "air-1", name: "Plant PC", alive: true }),
        license_file: expect.stringContaining("-----BEGIN DEPOT LICENSE FILE-----"),
        license_file_expires_at: expect.stringMatching(ISO),
      },
    });
    const expires = Date.parse(body.data.license_file_expires_at);
    expect(Math.abs(expires - (before + DAY * 1000))).toBeLessThan(60_000);
    const jws = body.data.license_file.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    const { payload } = await jwtVerify(jws, createLocalJWKSet(jwks), { typ: "depot-license+jwt" });
    expect(payload).toMatchObject({
      sub: license.id,
      fingerprint: "air-1",
      machine_id: body.data.machine.id,
    });

    const longer = encode({ v: 1, key: license.key, fingerprint: "air-2" });
    const cut = await readJson(
      await call(`${machinesPath(license.id)}/offline`, "POST", { request: longer, ttl: 300 * DAY }),
    );
    const cutExpiry = Date.parse(cut.data.license_file_expires_at);
    expect(Math.abs(cutExpiry - (Date.now() + 3 * DAY * 1000))).toBeLessThan(60_000);
    // The list shows both, each holding its seat with its file.
    const listed = (await readJson(await call(machinesPath(license.id)))).data;
    expect(listed.map((m: { file_expires_at: string | null }) => m.file_expires_at !== null)).toEqual([
      true,
      true,
    ]);
  });

  test("bad input: 422 per field, nothing written; a revoked license: 403 REVOKED", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const other = await newLicense({ maxMachines: 2 });
    const path = `${machinesPath(license.id)}/offline`;
    const cases: [unknown, string, string][] = [
      [{ request: "!!!" }, "request", "The activation request is not base64."],
      [
        { request: encode({ v: 1, key: other.key, fingerprint: "x" }) },
        "request",
        "The activation request is for another license.",
      ],
    ];
    for (const [body, field, message] of cases) {
      const response = await call(path, "POST", body);
      expect(response.status).toBe(422);
      expect((await readJson(response)).errors).toEqual({ [field]: [message] });
    }
    const shortTtl = await call(path, "POST", {
      request: encode({ v: 1, key: license.key, fingerprint: "x" }),
      ttl: 60,
    });
    expect(shortTtl.status).toBe(422);
    expect(Object.keys((await readJson(shortTtl)).errors)).toEqual(["ttl"]);
    expect(await t.ctx.db.select().from(machines).where(eq(machines.licenseId, license.id))).toEqual([]);

    expect((await call(`/api/products/${w.productA.id}/licenses/${license.id}`, "DELETE")).status).toBe(204);
    const revoked = await call(path, "POST", {
      request: encode({ v: 1, key: license.key, fingerprint: "x" }),
    });
    expect(revoked.status).toBe(403);
    expect((await readJson(revoked)).code).toBe("REVOKED");
  });
});
