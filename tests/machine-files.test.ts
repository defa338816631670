import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { decodeJwt } from "jose";
import { licenses, machines, products } from "../src/db/schema/index.ts";
import { sweepDeadMachines } from "../src/features/machines/sweep.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { fetchJwks, type Jwks, readSigned, verifyAnswer } from "./helpers/verify-signature.ts";

/**
 * Issue 32, item 1: a one-seat license handed out unlimited year-long machine files. A license file's
 * lifetime has a ceiling (the license's machineFileTtlMax, else its product's default, else 7 days for
 * a node-locked license), and a machine whose file is still valid keeps its seat until the file
 * expires: deactivating it is a 409 unless the vendor's API key forces it. Through a listening server
 * on a real database; file lifetimes read from the files' own claims.
 */

setDefaultTimeout(30_000);

const DAY = 86_400;
const YEAR = 365 * DAY;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface License {
  id: string;
  key: string;
  machineFileTtlMax?: number | null;
}

let t: TestApp;
let w: LicenseWorld;
let base: string;
let jwks: Jwks;
let vendorToken: string;
let ownerToken: string;

beforeAll(async () => {
  t = await startTestApp();
  w = await licenseWorld(t.ctx);
  base = t.listen();
  jwks = await fetchJwks(base);
  vendorToken = await tokenFor(t.ctx, w.creatorA);
  ownerToken = await tokenFor(t.ctx, w.owner);
});
afterAll(() => t.close());

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const api = (method: string, path: string, body?: unknown) =>
  send(method, path, body, { "x-api-key": w.globalKey });
const asKey = (license: License) => ({ authorization: `License ${license.key}` });
const newLicense = (fields: Record<string, unknown> = {}) => licenseIn(t, w, fields) as Promise<License>;

/** The file's lifetime as its claims say (`exp` − `iat`), after checking the answer names the same `exp`. */
function lifetimeOf(answer: { license_file: string; license_file_expires_at: string }) {
  const jws = answer.license_file.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const claims = decodeJwt(jws);
  expect(answer.license_file_expires_at).toBe(new Date((claims.exp ?? 0) * 1000).toISOString());
  return (claims.exp ?? 0) - (claims.iat ?? 0);
}

async function activateOffline(license: License, fingerprint: string, ttl?: number) {
  const response = await send("POST", "/api/v1/licenses/activate", {
    key: license.key,
    fingerprint,
    offline: true,
    ...(ttl === undefined ? {} : { ttl }),
  });
  expect(response.status).toBe(201);
  return readJson(response);
}

async function activateOnline(license: License, fingerprint: string) {
  const response = await send("POST", "/api/v1/licenses/activate", { key: license.key, fingerprint });
  expect([200, 201]).toContain(response.status);
  return readJson(response);
}

const checkout = (license: License, body: Record<string, unknown>) =>
  send("POST", "/api/v1/licenses/checkout", { key: license.key, ...body });
const fileRoute = (license: License, ttl: number) =>
  fetch(`${base}/api/v1/licenses/${license.id}/file?ttl=${ttl}`, { headers: { "x-api-key": w.globalKey } });
const exchange = (license: License, fingerprint: string) =>
  send(
    "POST",
    `/api/licenses/${license.id}/machines/offline`,
    { request: Buffer.from(JSON.stringify({ v: 1, key: license.key, fingerprint })).toString("base64") },
    bearer(ownerToken),
  );
const productSettings = (productId: number, body?: unknown) =>
  send(body === undefined ? "GET" : "PATCH", `/api/products/${productId}/license-settings`, body, {
    ...bearer(vendorToken),
  });

const machineRow = async (id: string) =>
  (await t.ctx.db.select().from(machines).where(eq(machines.id, id)))[0];

/** Moves a machine's last heartbeat `seconds` into the past, as if it had stopped sending them. */
async function silentFor(machineId: string, seconds: number) {
  await t.ctx.db
    .update(machines)
    .set({ lastHeartbeatAt: sql`clock_timestamp() - make_interval(secs => ${seconds})` })
    .where(eq(machines.id, machineId));
}

/** Verifies the answer's signature and returns its JSON body. */
async function verifiedJson(response: Response) {
  const signed = await readSigned(response);
  expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
  return JSON.parse(new TextDecoder().decode(signed.body));
}

describe("the ceiling on a license file's lifetime", () => {
  test("a node-locked license without settings: every file lasts at most 7 days, however long the ttl", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const offline = await activateOffline(license, "vault", YEAR);
    expect(lifetimeOf(offline)).toBe(7 * DAY);
    expect(offline.machine.fileExpiresAt).toMatch(ISO);
    expect(offline.machine.fileExpiresAt).toBe(offline.license_file_expires_at);
    await activateOnline(license, "desk");
    const checkedOut = await readJson(await checkout(license, { fingerprint: "desk", ttl: YEAR }));
    expect(checkedOut.code).toBe("VALID");
    expect(lifetimeOf(checkedOut)).toBe(7 * DAY);
    // No ttl at all: the default 30 days are cut too; a shorter one is kept as asked.
    const exchanged = await exchange(license, "vault");
    expect(exchanged.status).toBe(200);
    expect(lifetimeOf((await readJson(exchanged)).data)).toBe(7 * DAY);
    const short = await readJson(await checkout(license, { fingerprint: "desk", ttl: DAY }));
    expect(lifetimeOf(short)).toBe(DAY);
    // The license API's file route keeps the license's ceiling as well.
    const file = await fileRoute(license, YEAR);
    expect(file.status).toBe(200);
    const claims = decodeJwt((await file.text()).replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, ""));
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(7 * DAY);
  });

  test("a license without machines and without settings keeps a year-long file, as before", async () => {
    const license = await newLicense();
    const answer = await readJson(await checkout(license, { ttl: YEAR }));
    expect(lifetimeOf(answer)).toBe(YEAR);
    await activateOnline(license, "optional");
    const bound = await readJson(await checkout(license, { fingerprint: "optional", ttl: YEAR }));
    expect(lifetimeOf(bound)).toBe(YEAR);
  });

  test("the license's machineFileTtlMax: created, answered, changed and back to null", async () => {
    const license = await newLicense({ maxMachines: 1, machineFileTtlMax: 3_600 });
    expect(license.machineFileTtlMax).toBe(3_600);
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, license.id));
    expect(row?.machineFileTtlMax).toBe(3_600);
    expect(lifetimeOf(await activateOffline(license, "hourly", DAY))).toBe(3_600);

    const longer = await api("PATCH", `/api/v1/licenses/${license.id}`, { machineFileTtlMax: 30 * DAY });
    expect(longer.status).toBe(200);
    expect(await readJson(longer)).toMatchObject({ machineFileTtlMax: 30 * DAY });
    expect(lifetimeOf(await readJson(await checkout(license, { fingerprint: "hourly", ttl: YEAR })))).toBe(
      30 * DAY,
    );
    const back = await readJson(
      await api("PATCH", `/api/v1/licenses/${license.id}`, { machineFileTtlMax: null }),
    );
    expect(back.machineFileTtlMax).toBeNull();
    expect(lifetimeOf(await readJson(await checkout(license, { fingerprint: "hourly", ttl: YEAR })))).toBe(
      7 * DAY,
    );
    // A license without machines that sets one is held to it, with or without a fingerprint.
    const plain = await newLicense({ machineFileTtlMax: 2 * DAY });
    expect(plain.machineFileTtlMax).toBe(2 * DAY);
    expect(lifetimeOf(await readJson(await checkout(plain, { ttl: YEAR })))).toBe(2 * DAY);
  });

  test.each([
    [{ machineFileTtlMax: 3_599 }, "The machineFileTtlMax field must be between 3600 and 31536000."],
    [{ machineFileTtlMax: 31_536_001 }, "The machineFileTtlMax field must be between 3600 and 31536000."],
    [{ machineFileTtlMax: 7.5 }, "The machineFileTtlMax field must be an integer."],
    [{ machineFileTtlMax: "3600" }, "The machineFileTtlMax field must be an integer."],
  ])("the license API refuses %j: 422 on machineFileTtlMax, nothing written", async (fields, message) => {
    const before = await t.ctx.db.select({ n: sql<number>`count(*)::int` }).from(licenses);
    const created = await api("POST", "/api/v1/licenses", {
      ownerId: String(w.owner.id),
      creatorId: String(w.creatorA.id),
      productId: String(w.productA.id),
      ...fields,
    });
    expect(created.status).toBe(422);
    expect((await readJson(created)).errors).toEqual({ machineFileTtlMax: [message] });
    expect(await t.ctx.db.select({ n: sql<number>`count(*)::int` }).from(licenses)).toEqual(before);
    const license = await newLicense({ maxMachines: 1 });
    const patched = await api("PATCH", `/api/v1/licenses/${license.id}`, fields);
    expect(patched.status).toBe(422);
    expect((await readJson(patched)).errors).toEqual({ machineFileTtlMax: [message] });
  });

  test("the product's default: the vendor sets it beside its licenses; a license's own setting wins", async () => {
    const product = w.productA.id;
    const read = await productSettings(product);
    expect(read.status).toBe(200);
    expect(await readJson(read)).toEqual({ data: { machine_file_ttl_max: null } });
    const set = await productSettings(product, { machine_file_ttl_max: DAY });
    expect(set.status).toBe(200);
    expect(await readJson(set)).toEqual({ data: { machine_file_ttl_max: DAY } });
    const [row] = await t.ctx.db.select().from(products).where(eq(products.id, product));
    expect(row?.machineFileTtlMax).toBe(DAY);
    try {
      const nodeLocked = await newLicense({ maxMachines: 1 });
      expect(lifetimeOf(await activateOffline(nodeLocked, "daily", YEAR))).toBe(DAY);
      // The product's default applies to a license without machines too…
      const plain = await newLicense();
      expect(lifetimeOf(await readJson(await checkout(plain, { ttl: YEAR })))).toBe(DAY);
      // …and a license's own ceiling, longer or shorter, wins over it.
      const own = await newLicense({ maxMachines: 1, machineFileTtlMax: 3 * DAY });
      expect(lifetimeOf(await activateOffline(own, "own", YEAR))).toBe(3 * DAY);
      // {} changes nothing; bad values are a 422 that names the field, nothing written.
      expect(await readJson(await productSettings(product, {}))).toEqual({
        data: { machine_file_ttl_max: DAY },
      });
      for (const [value, message] of [
        [60, "The machine file ttl max field must be between 3600 and 31536000."],
        ["1 day", "The machine file ttl max field must be an integer."],
      ] as const) {
        const refused = await productSettings(product, { machine_file_ttl_max: value });
        expect(refused.status).toBe(422);
        expect((await readJson(refused)).errors).toEqual({ machine_file_ttl_max: [message] });
      }
      const unknown = await productSettings(product, { ttl: 5 });
      expect(unknown.status).toBe(422);
      expect((await readJson(unknown)).errors).toEqual({ ttl: ["The ttl field is prohibited."] });
    } finally {
      expect((await productSettings(product, { machine_file_ttl_max: null })).status).toBe(200);
    }
    expect(await readJson(await productSettings(product))).toEqual({ data: { machine_file_ttl_max: null } });
  });

  test("the product's settings: 401 without a credential, 403 for someone who may not manage it, 404 for no product", async () => {
    const stranger = await tokenFor(t.ctx, w.creatorB);
    const product = w.productA.id;
    const noAuth = await send("GET", `/api/products/${product}/license-settings`);
    expect(noAuth.status).toBe(401);
    const asStranger = await send(
      "PATCH",
      `/api/products/${product}/license-settings`,
      { machine_file_ttl_max: 3_600 },
      bearer(stranger),
    );
    expect(asStranger.status).toBe(403);
    const missing = await send(
      "GET",
      "/api/products/999999/license-settings",
      undefined,
      bearer(vendorToken),
    );
    expect(missing.status).toBe(404);
    expect(await readJson(missing)).toEqual({ message: "Product not found." });
    const [row] = await t.ctx.db.select().from(products).where(eq(products.id, product));
    expect(row?.machineFileTtlMax).toBeNull();
  });

  test("a product's license page sets machine_file_ttl_max too (snake_case, the same rules)", async () => {
    const created = await send(
      "POST",
      `/api/products/${w.productA.id}/licenses`,
      { owner_email: w.owner.email, max_machines: 1, machine_file_ttl_max: 2 * DAY },
      bearer(vendorToken),
    );
    expect(created.status).toBe(201);
    const { data } = await readJson(created);
    expect(data).toMatchObject({ max_machines: 1, machine_file_ttl_max: 2 * DAY });
    const patch = (body: unknown) =>
      send("PATCH", `/api/products/${w.productA.id}/licenses/${data.id}`, body, bearer(vendorToken));
    const changed = await patch({ machine_file_ttl_max: null });
    expect(changed.status).toBe(200);
    expect((await readJson(changed)).data.machine_file_ttl_max).toBeNull();
    const refused = await patch({ machine_file_ttl_max: 100 });
    expect(refused.status).toBe(422);
    expect((await readJson(refused)).errors).toEqual({
      machine_file_ttl_max: ["The machine file ttl max field must be between 3600 and 31536000."],
    });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, data.id));
    expect(row?.machineFileTtlMax).toBeNull();
  });
});

describe("a machine whose license file is still valid keeps its seat", () => {
  test("the review's case: one seat, a file, deactivate, activate the next → 409 both times, one machine", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const first = await activateOffline(license, "first", YEAR);
    const expiresAt = first.license_file_expires_at;
    const refused = await send("DELETE", `/api/v1/machines/${first.machine.id}`, undefined, asKey(license));
    expect(refused.status).toBe(409);
    expect(await verifiedJson(refused)).toEqual({
      code: "MACHINE_FILE_VALID",
      message: `This machine holds its seat until its license file expires at ${expiresAt}.`,
      fileExpiresAt: expiresAt,
    });
    const next = await send("POST", "/api/v1/licenses/activate", {
      key: license.key,
      fingerprint: "second",
      offline: true,
    });
    expect(next.status).toBe(409);
    expect((await readJson(next)).code).toBe("TOO_MANY_MACHINES");
    const rows = await t.ctx.db.select().from(machines).where(eq(machines.licenseId, license.id));
    expect(rows.map((row) => row.fingerprint)).toEqual(["first"]);
    expect(rows[0]?.fileExpiresAt?.toISOString()).toBe(expiresAt);
  });

  test("the owner's dashboard route refuses too (409, fileExpiresAt), and the machine lists show the expiry", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = (await activateOffline(license, "owned")).machine;
    const refused = await send(
      "DELETE",
      `/api/licenses/${license.id}/machines/${machine.id}`,
      undefined,
      bearer(ownerToken),
    );
    expect(refused.status).toBe(409);
    expect(await readJson(refused)).toEqual({
      code: "MACHINE_FILE_VALID",
      message: expect.stringMatching(/^This machine holds its seat until its license file expires at /),
      fileExpiresAt: machine.fileExpiresAt,
    });
    expect(await machineRow(machine.id)).toBeDefined();
    const own = await readJson(
      await send("GET", `/api/licenses/${license.id}/machines`, undefined, bearer(ownerToken)),
    );
    expect(own.data).toEqual([
      expect.objectContaining({ id: machine.id, file_expires_at: machine.fileExpiresAt }),
    ]);
    const vendor = await readJson(await api("GET", `/api/v1/licenses/${license.id}/machines`));
    expect(vendor.machines).toEqual([
      expect.objectContaining({ id: machine.id, fileExpiresAt: machine.fileExpiresAt }),
    ]);
  });

  test("the vendor's API key forces it (?force=true → 204); without force it is refused; a license key cannot force", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = (await activateOffline(license, "forced")).machine;
    const withKey = await send(
      "DELETE",
      `/api/v1/machines/${machine.id}?force=true`,
      undefined,
      asKey(license),
    );
    expect(withKey.status).toBe(422);
    expect((await verifiedJson(withKey)).errors).toEqual({
      force: ["The force field is only accepted with an x-api-key."],
    });
    const bad = await send("DELETE", `/api/v1/machines/${machine.id}?force=yes`, undefined, {
      "x-api-key": w.globalKey,
    });
    expect(bad.status).toBe(422);
    expect((await readJson(bad)).errors).toEqual({ force: ["The force field must be true or false."] });
    const unforced = await send("DELETE", `/api/v1/machines/${machine.id}`, undefined, {
      "x-api-key": w.globalKey,
    });
    expect(unforced.status).toBe(409);
    expect((await readJson(unforced)).code).toBe("MACHINE_FILE_VALID");
    // Another creator's key cannot force someone else's machine either.
    const foreign = await send("DELETE", `/api/v1/machines/${machine.id}?force=true`, undefined, {
      "x-api-key": w.keyB,
    });
    expect(foreign.status).toBe(404);
    expect(await machineRow(machine.id)).toBeDefined();
    const forced = await send("DELETE", `/api/v1/machines/${machine.id}?force=true`, undefined, {
      "x-api-key": w.keyA,
    });
    expect(forced.status).toBe(204);
    expect(await machineRow(machine.id)).toBeUndefined();
    // The seat is free for the next machine.
    await activateOffline(license, "after");
  });

  test("an expired file holds nothing: deactivation 204 again", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = (await activateOffline(license, "old")).machine;
    await t.ctx.db
      .update(machines)
      .set({ fileExpiresAt: sql`clock_timestamp() - interval '1 second'` })
      .where(eq(machines.id, machine.id));
    expect((await send("DELETE", `/api/v1/machines/${machine.id}`, undefined, asKey(license))).status).toBe(
      204,
    );
  });

  test("a checkout with a fingerprint keeps the file's expiry on the machine (the latest of its files)", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = (await activateOnline(license, "checked")).machine;
    expect(machine.fileExpiresAt).toBeNull();
    expect((await send("DELETE", `/api/v1/machines/${machine.id}`, undefined, asKey(license))).status).toBe(
      204,
    );
    const again = (await activateOnline(license, "checked")).machine;
    const long = await readJson(await checkout(license, { fingerprint: "checked", ttl: 5 * DAY }));
    expect(long.machine.fileExpiresAt).toBe(long.license_file_expires_at);
    const short = await readJson(await checkout(license, { fingerprint: "checked", ttl: DAY }));
    // A shorter file does not shorten the seat: the longer one is still out there.
    expect(short.machine.fileExpiresAt).toBe(long.license_file_expires_at);
    expect((await machineRow(again.id))?.fileExpiresAt?.toISOString()).toBe(long.license_file_expires_at);
    expect((await send("DELETE", `/api/v1/machines/${again.id}`, undefined, asKey(license))).status).toBe(
      409,
    );
  });

  test("a dead node-locked machine with a valid file still holds its seat: counted, and its own fingerprint replaces it", async () => {
    const license = await newLicense({ maxMachines: 1, heartbeatSeconds: 10 });
    const dead = (await activateOffline(license, "sleeper")).machine;
    await silentFor(dead.id, 3_600);
    const other = await send("POST", "/api/v1/licenses/activate", {
      key: license.key,
      fingerprint: "intruder",
    });
    expect(other.status).toBe(409);
    expect((await readJson(other)).code).toBe("TOO_MANY_MACHINES");
    const validation = await readJson(
      await send("POST", "/api/v1/licenses/validate", { key: license.key, fingerprint: "sleeper" }),
    );
    expect(validation).toMatchObject({ code: "HEARTBEAT_DEAD", machines: { count: 1, max: 1 } });
    const vendor = await tokenFor(t.ctx, w.creatorA);
    const list = await readJson(
      await fetch(`${base}/api/products/${w.productA.id}/licenses?search=${license.key}`, {
        headers: bearer(vendor),
      }),
    );
    expect(list.data).toEqual([expect.objectContaining({ id: license.id, machine_count: 1 })]);
    // The same fingerprint comes back as a new machine, which keeps the seat its file holds.
    const back = await send("POST", "/api/v1/licenses/activate", {
      key: license.key,
      fingerprint: "sleeper",
    });
    expect(back.status).toBe(201);
    const revived = (await readJson(back)).machine;
    expect(revived.id).not.toBe(dead.id);
    expect(revived.fileExpiresAt).toBe(dead.fileExpiresAt);
    expect((await send("DELETE", `/api/v1/machines/${revived.id}`, undefined, asKey(license))).status).toBe(
      409,
    );
  });

  test("floating: a file ends with the lease, so a dead machine's seat is free — unless the interval was shortened since", async () => {
    const license = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 600 });
    const machine = (await activateOffline(license, "lease")).machine;
    // The file ends with the lease (660 s from the heartbeat): once dead, the file is expired too.
    expect(Date.parse(machine.fileExpiresAt) - Date.parse(machine.lastHeartbeatAt)).toBeLessThanOrEqual(
      660_000,
    );
    await silentFor(machine.id, 700);
    await t.ctx.db
      .update(machines)
      .set({ fileExpiresAt: sql`${machines.lastHeartbeatAt} + interval '660 seconds'` })
      .where(eq(machines.id, machine.id));
    expect(
      (await send("POST", "/api/v1/licenses/activate", { key: license.key, fingerprint: "next" })).status,
    ).toBe(201);

    // A lease shortened after the file was issued: dead by the new interval, the file still valid.
    const shortened = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 600 });
    const holder = (await activateOffline(shortened, "holder")).machine;
    expect((await api("PATCH", `/api/v1/licenses/${shortened.id}`, { heartbeatSeconds: 10 })).status).toBe(
      200,
    );
    await silentFor(holder.id, 100);
    expect(
      (await send("POST", "/api/v1/licenses/activate", { key: shortened.key, fingerprint: "next" })).status,
    ).toBe(409);
    await sweepDeadMachines(t.ctx);
    expect(await machineRow(holder.id)).toBeDefined();
  });
});
