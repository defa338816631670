import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createLocalJWKSet, jwtVerify } from "jose";
import { licenses, machineActivations, machines } from "../src/db/schema/index.ts";
import { sweepDeadMachines } from "../src/features/machines/sweep.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { testOnBothDatabases } from "./helpers/both-databases.ts";
import { type LicenseWorld, licenseIn, licenseWorld, tokenFor } from "./helpers/factories.ts";
import { fetchJwks, type Jwks, readSigned, verifyAnswer } from "./helpers/verify-signature.ts";

/**
 * Issue 26: licenses bound to machines. Activation, heartbeats, deactivation and the machine lists
 * through a listening server on a real database; death computed at each check (heartbeats backdated
 * in the database rather than waited for), the daily activation bound, the validation codes and their
 * order, machine-bound license files verified with `jose`, and the 50-way activation race on both
 * databases.
 */

setDefaultTimeout(30_000);

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface License {
  id: string;
  key: string;
  maxIps: number | null;
  maxMachines?: number | null;
  floating?: boolean;
  heartbeatSeconds?: number | null;
}

let t: TestApp;
let w: LicenseWorld;
let base: string;
let jwks: Jwks;

beforeAll(async () => {
  t = await startTestApp({ env: { MACHINE_ACTIVATIONS_PER_DAY: "6" } });
  w = await licenseWorld(t.ctx);
  base = t.listen();
  jwks = await fetchJwks(base);
});
afterAll(() => t.close());

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const activateAt = (url: string, body: unknown) => post(url, "/api/v1/licenses/activate", body);
const activate = (body: unknown) => activateAt(base, body);
const validate = (body: unknown, headers: Record<string, string> = {}) =>
  post(base, "/api/v1/licenses/validate", body, headers);
const heartbeat = (id: string, key?: string) =>
  fetch(`${base}/api/v1/machines/${id}/heartbeat`, {
    method: "POST",
    headers: key === undefined ? {} : { authorization: `License ${key}` },
  });
const deactivate = (id: string, headers: Record<string, string>) =>
  fetch(`${base}/api/v1/machines/${id}`, { method: "DELETE", headers });
const api = (path: string, method: string, body?: unknown, key = w.globalKey) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-api-key": key },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const newLicense = (fields: Record<string, unknown> = {}) => licenseIn(t, w, fields) as Promise<License>;

/** Activates `fingerprint` and expects a new machine. */
async function activated(license: License, fingerprint: string, extra: Record<string, unknown> = {}) {
  const response = await activate({ key: license.key, fingerprint, ...extra });
  const body = await readJson(response);
  expect({ status: response.status, body }).toMatchObject({ status: 201 });
  return body.machine as { id: string; fingerprint: string; lastHeartbeatAt: string; alive: boolean };
}

/** Moves a machine's last heartbeat `seconds` into the past, as if it had stopped sending them. */
async function silentFor(machineId: string, seconds: number) {
  await t.ctx.db
    .update(machines)
    .set({ lastHeartbeatAt: sql`clock_timestamp() - make_interval(secs => ${seconds})` })
    .where(eq(machines.id, machineId));
}

/** The answer's body as JSON, once its signature verified against the published keys. */
async function verifiedJson(response: Response) {
  const signed = await readSigned(response);
  expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
  return JSON.parse(new TextDecoder().decode(signed.body));
}

const machineRows = (licenseId: string) =>
  t.ctx.db.select().from(machines).where(eq(machines.licenseId, licenseId));
const activationCount = async (licenseId: string) =>
  (await t.ctx.db.select().from(machineActivations).where(eq(machineActivations.licenseId, licenseId)))
    .length;

describe("a license's machine settings (create and PATCH with x-api-key)", () => {
  test("maxMachines, floating and heartbeatSeconds are stored and answered; floating defaults to 600 s", async () => {
    const counted = await newLicense({ maxMachines: 3 });
    expect(counted).toMatchObject({ maxMachines: 3, floating: false, heartbeatSeconds: null });
    const floating = await newLicense({ maxMachines: 2, floating: true });
    expect(floating).toMatchObject({ maxMachines: 2, floating: true, heartbeatSeconds: 600 });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, floating.id));
    expect(row).toMatchObject({ maxMachines: 2, floating: true, heartbeatSeconds: 600 });

    const patched = await api(`/api/v1/licenses/${counted.id}`, "PATCH", { heartbeatSeconds: 30 });
    expect(patched.status).toBe(200);
    expect(await readJson(patched)).toMatchObject({ maxMachines: 3, floating: false, heartbeatSeconds: 30 });
    // Turning floating on keeps the interval it has.
    const floated = await readJson(await api(`/api/v1/licenses/${counted.id}`, "PATCH", { floating: true }));
    expect(floated).toMatchObject({ floating: true, heartbeatSeconds: 30 });
  });

  test("a license without machine settings reads exactly as before: no machine fields", async () => {
    const plain = await newLicense();
    expect(Object.keys(plain).toSorted()).toEqual(
      [
        "createdAt",
        "creatorId",
        "expires",
        "id",
        "key",
        "maxIps",
        "productId",
        "updatedAt",
        "userId",
      ].toSorted(),
    );
  });

  test.each([
    [{ maxMachines: -1 }, "maxMachines", "The maxMachines field must be between 0 and 10000."],
    [{ maxMachines: 1.5 }, "maxMachines", "The maxMachines field must be an integer."],
    [{ heartbeatSeconds: 9 }, "heartbeatSeconds", "The heartbeatSeconds field must be between 10 and 86400."],
    [
      { heartbeatSeconds: 86_401 },
      "heartbeatSeconds",
      "The heartbeatSeconds field must be between 10 and 86400.",
    ],
    [
      { floating: true, heartbeatSeconds: null },
      "heartbeatSeconds",
      "The heartbeatSeconds field is required when the license is floating.",
    ],
    [{ floating: "yes" }, "floating", "The floating field must be true or false."],
    [{ maxSeats: 3 }, "maxSeats", "The maxSeats field is prohibited."],
  ])("create with %j → 422 on %s, nothing written", async (fields, field, message) => {
    const before = await t.ctx.db.select({ n: sql<number>`count(*)::int` }).from(licenses);
    const response = await api("/api/v1/licenses", "POST", {
      ownerId: String(w.owner.id),
      creatorId: String(w.creatorA.id),
      productId: String(w.productA.id),
      ...fields,
    });
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors[field]).toEqual([message]);
    expect(typeof body.message).toBe("string");
    const after = await t.ctx.db.select({ n: sql<number>`count(*)::int` }).from(licenses);
    expect(after).toEqual(before);
  });

  test("PATCH floating: true on a license without heartbeats gives it 600 s; maxMachines null takes the fields away", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const floated = await readJson(await api(`/api/v1/licenses/${license.id}`, "PATCH", { floating: true }));
    expect(floated).toMatchObject({ maxMachines: 2, floating: true, heartbeatSeconds: 600 });
    const back = await readJson(
      await api(`/api/v1/licenses/${license.id}`, "PATCH", {
        maxMachines: null,
        floating: false,
        heartbeatSeconds: null,
      }),
    );
    expect("maxMachines" in back || "floating" in back || "heartbeatSeconds" in back).toBe(false);
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, license.id));
    expect(row).toMatchObject({ maxMachines: null, floating: false, heartbeatSeconds: null });
  });

  test("PATCH heartbeatSeconds null on a floating license → 422, the license unchanged", async () => {
    const floating = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 60 });
    const response = await api(`/api/v1/licenses/${floating.id}`, "PATCH", { heartbeatSeconds: null });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      heartbeatSeconds: ["The heartbeatSeconds field is required when the license is floating."],
    });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, floating.id));
    expect(row?.heartbeatSeconds).toBe(60);
  });
});

describe("POST /api/v1/licenses/activate", () => {
  test("a new machine → 201 {machine, license, nonce}, signed; the same fingerprint again → 200", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const response = await activate({
      key: license.key.toLowerCase(),
      fingerprint: "fp-ada-laptop",
      name: "Ada's laptop",
      platform: "linux-x64",
      hostname: "ada",
      nonce: "n-1",
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toContain("application/json");
    const signed = await readSigned(response);
    expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
    const body = JSON.parse(new TextDecoder().decode(signed.body));
    expect(body).toEqual({
      machine: {
        id: expect.stringMatching(UUID),
        licenseId: license.id,
        fingerprint: "fp-ada-laptop",
        name: "Ada's laptop",
        platform: "linux-x64",
        hostname: "ada",
        createdAt: expect.stringMatching(ISO),
        lastHeartbeatAt: expect.stringMatching(ISO),
        alive: true,
        fileExpiresAt: null,
      },
      license: expect.objectContaining({ id: license.id, key: license.key, maxMachines: 2 }),
      nonce: "n-1",
    });

    const again = await activate({ key: license.key, fingerprint: "fp-ada-laptop" });
    expect(again.status).toBe(200);
    const second = await readJson(again);
    expect(second.machine.id).toBe(body.machine.id);
    // Details not sent again are kept.
    expect(second.machine.name).toBe("Ada's laptop");
    expect(second.nonce).toBeNull();
    expect(await machineRows(license.id)).toHaveLength(1);
    expect(await activationCount(license.id)).toBe(1);
  });

  test("maxMachines alive machines → 409 TOO_MANY_MACHINES, signed, nothing written", async () => {
    const license = await newLicense({ maxMachines: 1 });
    await activated(license, "first");
    const response = await activate({ key: license.key, fingerprint: "second" });
    expect(response.status).toBe(409);
    const signed = await readSigned(response);
    expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(signed.body))).toEqual({
      code: "TOO_MANY_MACHINES",
      message: "This license is already active on its maximum of 1 machine.",
      nonce: null,
    });
    expect((await machineRows(license.id)).map((m) => m.fingerprint)).toEqual(["first"]);
    expect(await activationCount(license.id)).toBe(1);
  });

  test("maxMachines 0 admits no machine", async () => {
    const license = await newLicense({ maxMachines: 0 });
    const response = await activate({ key: license.key, fingerprint: "any" });
    expect(response.status).toBe(409);
    expect((await readJson(response)).code).toBe("TOO_MANY_MACHINES");
  });

  test("revoked → 403 REVOKED, expired → 403 EXPIRED, unknown key → 404 NOT_FOUND; nothing written", async () => {
    const revoked = await newLicense({ maxMachines: 3 });
    expect((await api(`/api/v1/licenses/${revoked.id}`, "DELETE")).status).toBe(204);
    const expired = await newLicense({ maxMachines: 3, expires: "2020-01-01T00:00:00Z" });
    const cases: [string, number, unknown][] = [
      [revoked.key, 403, { code: "REVOKED", message: "This license has been revoked.", nonce: null }],
      [
        expired.key,
        403,
        { code: "EXPIRED", message: "This license expired at 2020-01-01T00:00:00.000Z.", nonce: null },
      ],
      [
        "00000-00000-00000-00000-00000",
        404,
        { code: "NOT_FOUND", message: "No license has this key.", nonce: null },
      ],
      ["not a key!", 404, { code: "NOT_FOUND", message: "No license has this key.", nonce: null }],
    ];
    for (const [key, status, body] of cases) {
      const response = await activate({ key, fingerprint: "fp" });
      expect(response.status).toBe(status);
      const signed = await readSigned(response);
      expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
      expect(JSON.parse(new TextDecoder().decode(signed.body))).toEqual(body);
    }
    expect(await machineRows(revoked.id)).toEqual([]);
    expect(await machineRows(expired.id)).toEqual([]);
  });

  test.each([
    [{ fingerprint: "" }, "fingerprint", "The fingerprint field is required."],
    [
      { fingerprint: "x".repeat(256) },
      "fingerprint",
      "The fingerprint field must not be greater than 255 characters.",
    ],
    [{ fingerprint: "ab\ncd" }, "fingerprint", "The fingerprint field must not contain control characters."],
    [
      { fingerprint: "ab\u0085cd" },
      "fingerprint",
      "The fingerprint field must not contain control characters.",
    ],
    [{ fingerprint: 42 }, "fingerprint", "The fingerprint field must be a string."],
    [{ fingerprint: undefined }, "fingerprint", "The fingerprint field is required."],
    [{ name: "a\tb" }, "name", "The name field must not contain control characters."],
    [{ seats: 2 }, "seats", "The seats field is prohibited."],
    [{ offline: "yes" }, "offline", "The offline field must be true or false."],
  ])("%j → 422 on %s, nothing written", async (fields, field, message) => {
    const license = await newLicense({ maxMachines: 3 });
    const response = await activate({ key: license.key, fingerprint: "ok", ...fields });
    expect(response.status).toBe(422);
    const body = await readJson(response);
    expect(body.errors[field]).toEqual([message]);
    expect(body.message).toBe(message);
    expect(await machineRows(license.id)).toEqual([]);
  });

  test("a fingerprint of 255 printable characters (any script) is taken as it is", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const fingerprint = `${"é".repeat(250)} ✓ 日本`;
    expect(fingerprint.length).toBe(255);
    expect((await activated(license, fingerprint)).fingerprint).toBe(fingerprint);
  });

  test("a license without maxMachines activates any number of machines, uncounted", async () => {
    const license = await newLicense();
    for (const fingerprint of ["a", "b", "c"]) await activated(license, fingerprint);
    const validation = await readJson(await validate({ key: license.key }));
    expect(validation.code).toBe("VALID");
    expect(validation.machines).toBeUndefined();
  });
});

describe("the daily activation bound (MACHINE_ACTIVATIONS_PER_DAY=6 here)", () => {
  test("deactivating and re-activating counts; the 7th new activation in a day → 429 with Retry-After", async () => {
    const license = await newLicense({ maxMachines: 1 });
    for (let round = 0; round < 6; round++) {
      const machine = await activated(license, `churn-${round}`);
      // A refused attempt between them does not count.
      expect((await activate({ key: license.key, fingerprint: "refused" })).status).toBe(409);
      expect((await deactivate(machine.id, { authorization: `License ${license.key}` })).status).toBe(204);
    }
    const response = await activate({ key: license.key, fingerprint: "one-too-many" });
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(86_000);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    const signed = await readSigned(response);
    expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(signed.body))).toEqual({
      code: "TOO_MANY_ACTIVATIONS",
      message: expect.stringMatching(
        /^This license has made its 6 activations of the last 24 hours; try again in \d+ seconds\.$/,
      ),
      nonce: null,
    });
    expect(await machineRows(license.id)).toEqual([]);
    expect(await activationCount(license.id)).toBe(6);
    // Once the oldest activation is a day old, one more is allowed.
    await t.ctx.db.execute(
      sql`UPDATE machine_activations SET created_at = created_at - interval '1 day' WHERE id = (SELECT min(id) FROM machine_activations WHERE license_id = ${license.id})`,
    );
    await activated(license, "one-too-many");
  });

  test("an already active fingerprint answers 200 whatever the bound", async () => {
    const license = await newLicense({ maxMachines: 1 });
    await activated(license, "steady");
    await t.ctx.db
      .insert(machineActivations)
      .values(Array.from({ length: 6 }, () => ({ licenseId: license.id })));
    expect((await activate({ key: license.key, fingerprint: "steady" })).status).toBe(200);
  });
});

describe("heartbeats and death, computed at each check", () => {
  test("a heartbeat → 200 {machine}, signed, and moves lastHeartbeatAt", async () => {
    const license = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 30 });
    const machine = await activated(license, "beating");
    await silentFor(machine.id, 25);
    const response = await heartbeat(machine.id, license.key);
    expect(response.status).toBe(200);
    const signed = await readSigned(response);
    expect((await verifyAnswer(signed, jwks)).ok).toBe(true);
    const body = JSON.parse(new TextDecoder().decode(signed.body));
    expect(body).toEqual({
      machine: { ...machine, lastHeartbeatAt: expect.stringMatching(ISO), alive: true },
      nonce: null,
    });
    expect(Date.parse(body.machine.lastHeartbeatAt)).toBeGreaterThan(Date.now() - 5_000);
  });

  test("grace: heartbeatSeconds 30 → dead after 60 s of silence; 300 → after 360 s (grace at most 60)", async () => {
    const short = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 30 });
    const a = await activated(short, "short");
    await silentFor(a.id, 55);
    expect((await readJson(await validate({ key: short.key, fingerprint: "short" }))).code).toBe("VALID");
    await silentFor(a.id, 61);
    expect((await readJson(await validate({ key: short.key, fingerprint: "short" }))).code).toBe(
      "HEARTBEAT_DEAD",
    );

    const long = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 300 });
    const b = await activated(long, "long");
    await silentFor(b.id, 355);
    expect((await readJson(await validate({ key: long.key, fingerprint: "long" }))).code).toBe("VALID");
    await silentFor(b.id, 361);
    expect((await readJson(await validate({ key: long.key, fingerprint: "long" }))).code).toBe(
      "HEARTBEAT_DEAD",
    );
  });

  test("a dead floating machine: heartbeat → 410, it holds no seat, and activating again makes a new machine", async () => {
    const license = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 10 });
    const machine = await activated(license, "laptop");
    await silentFor(machine.id, 21);
    const response = await heartbeat(machine.id, license.key);
    expect(response.status).toBe(410);
    expect(await verifiedJson(response)).toEqual({
      code: "HEARTBEAT_DEAD",
      message: "This machine missed its heartbeats; activate it again.",
      nonce: null,
    });
    // Its seat is free without any sweep: another machine takes it.
    const desktop = await activated(license, "desktop");
    expect(desktop.alive).toBe(true);
    // The dead one comes back only as a new activation, when a seat is free.
    expect((await activate({ key: license.key, fingerprint: "laptop" })).status).toBe(409);
    await silentFor(desktop.id, 21);
    const again = await activated(license, "laptop");
    expect(again.id).not.toBe(machine.id);
  });

  test("the sweep deletes dead floating machines and marks dead node-locked ones", async () => {
    const floating = await newLicense({ maxMachines: 2, floating: true, heartbeatSeconds: 10 });
    const nodeLocked = await newLicense({ maxMachines: 2, heartbeatSeconds: 10 });
    const forever = await newLicense({ maxMachines: 2 });
    const gone = await activated(floating, "gone");
    const alive = await activated(floating, "alive");
    const marked = await activated(nodeLocked, "marked");
    const kept = await activated(forever, "kept");
    for (const id of [gone.id, marked.id, kept.id]) await silentFor(id, 3600);
    await sweepDeadMachines(t.ctx);
    expect((await machineRows(floating.id)).map((m) => m.id)).toEqual([alive.id]);
    const [markedRow] = await machineRows(nodeLocked.id);
    expect(markedRow?.deadAt).toBeInstanceOf(Date);
    const [keptRow] = await machineRows(forever.id);
    expect(keptRow?.deadAt).toBeNull();
    // A node-locked machine that died is listed, not alive; its heartbeat is refused too.
    const list = await readJson(await api(`/api/v1/licenses/${nodeLocked.id}/machines`, "GET"));
    expect(list.machines).toEqual([expect.objectContaining({ id: marked.id, alive: false })]);
    expect((await heartbeat(marked.id, nodeLocked.key)).status).toBe(410);
    // Without heartbeats wanted, a silent machine stays alive.
    expect((await readJson(await validate({ key: forever.key, fingerprint: "kept" }))).code).toBe("VALID");
  });

  test("heartbeat refusals: no or malformed credential 401, another license's key 404, revoked 403", async () => {
    const license = await newLicense({ maxMachines: 1, heartbeatSeconds: 60 });
    const other = await newLicense({ maxMachines: 1 });
    const machine = await activated(license, "mine");
    const none = await heartbeat(machine.id);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("License");
    expect(await readJson(none)).toEqual({ message: "Unauthenticated." });
    const bearerOnly = await fetch(`${base}/api/v1/machines/${machine.id}/heartbeat`, {
      method: "POST",
      headers: { authorization: `Bearer ${license.key}` },
    });
    expect(bearerOnly.status).toBe(401);
    const foreign = await heartbeat(machine.id, other.key);
    expect(foreign.status).toBe(404);
    const notFound = { code: "NOT_FOUND", message: "Machine not found.", nonce: null };
    expect(await readJson(foreign)).toEqual(notFound);
    for (const id of ["not-a-uuid", crypto.randomUUID()]) {
      const unknown = await heartbeat(id, license.key);
      expect(unknown.status).toBe(404);
      expect(await verifiedJson(unknown)).toEqual(notFound);
    }
    expect((await api(`/api/v1/licenses/${license.id}`, "DELETE")).status).toBe(204);
    const revoked = await heartbeat(machine.id, license.key);
    expect(revoked.status).toBe(403);
    expect(await readJson(revoked)).toEqual({
      code: "REVOKED",
      message: "This license has been revoked.",
      nonce: null,
    });
  });
});

describe("deactivation and the machine lists", () => {
  test("DELETE with the license key → 204 (no body, unsigned; refusals signed); another license's key → 404 and nothing deleted", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const other = await newLicense({ maxMachines: 1 });
    const machine = await activated(license, "to-free");
    const foreign = await deactivate(machine.id, { authorization: `License ${other.key}` });
    expect(foreign.status).toBe(404);
    expect(await verifiedJson(foreign)).toEqual({ message: "Machine not found." });
    expect(await machineRows(license.id)).toHaveLength(1);
    const response = await deactivate(machine.id, { authorization: `License ${license.key}` });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect(response.headers.get("content-type")).toBeNull();
    expect(await machineRows(license.id)).toEqual([]);
    // The seat is free again.
    await activated(license, "next");
  });

  test("DELETE with an x-api-key: the license's creator's or a global key; another creator's → 404", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const a = await activated(license, "a");
    const b = await activated(license, "b");
    expect((await deactivate(a.id, { "x-api-key": w.keyB })).status).toBe(404);
    expect((await deactivate(a.id, { "x-api-key": "dpk_nope" })).status).toBe(401);
    expect((await deactivate(a.id, {})).status).toBe(401);
    expect((await deactivate(a.id, { "x-api-key": w.keyA })).status).toBe(204);
    expect((await deactivate(b.id, { "x-api-key": w.globalKey })).status).toBe(204);
    expect((await deactivate(b.id, { "x-api-key": w.globalKey })).status).toBe(404);
    expect(await machineRows(license.id)).toEqual([]);
  });

  test("GET /api/v1/licenses/{id}/machines lists them oldest first; another creator's key → 404", async () => {
    const license = await newLicense({ maxMachines: 3, heartbeatSeconds: 10 });
    const first = await activated(license, "first", { name: "One" });
    const second = await activated(license, "second");
    await silentFor(second.id, 100);
    const response = await api(`/api/v1/licenses/${license.id}/machines`, "GET");
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body).toEqual({
      machines: [
        { ...first, lastHeartbeatAt: expect.stringMatching(ISO), alive: true },
        { ...second, lastHeartbeatAt: expect.stringMatching(ISO), alive: false },
      ],
    });
    const foreign = await api(`/api/v1/licenses/${license.id}/machines`, "GET", undefined, w.keyB);
    expect(foreign.status).toBe(404);
    expect(await readJson(foreign)).toEqual({ message: "License not found." });
  });

  test("the owner lists and deactivates their machines; someone else's license or machine → 404", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = await activated(license, "owner-pc", { name: "Office PC", platform: "windows-x64" });
    const token = await tokenFor(t.ctx, w.owner);
    const stranger = await tokenFor(t.ctx, w.creatorB);
    const list = await fetch(`${base}/api/licenses/${license.id}/machines`, { headers: bearer(token) });
    expect(list.status).toBe(200);
    expect(await readJson(list)).toEqual({
      data: [
        {
          id: machine.id,
          fingerprint: "owner-pc",
          name: "Office PC",
          platform: "windows-x64",
          hostname: null,
          created_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
          alive: true,
          file_expires_at: null,
        },
      ],
    });
    const theirs = await fetch(`${base}/api/licenses/${license.id}/machines`, { headers: bearer(stranger) });
    expect(theirs.status).toBe(404);
    const del = (licenseId: string, machineId: string, as: string) =>
      fetch(`${base}/api/licenses/${licenseId}/machines/${machineId}`, {
        method: "DELETE",
        headers: bearer(as),
      });
    expect((await del(license.id, machine.id, stranger)).status).toBe(404);
    const other = await newLicense({ maxMachines: 1 });
    expect((await del(other.id, machine.id, token)).status).toBe(404);
    expect(await machineRows(license.id)).toHaveLength(1);
    expect((await del(license.id, machine.id, token)).status).toBe(204);
    expect(await machineRows(license.id)).toEqual([]);
    expect((await del(license.id, machine.id, token)).status).toBe(404);
  });
});

describe("validate with machines", () => {
  test("the codes in order: PRODUCT_MISMATCH, FINGERPRINT_REQUIRED, NOT_ACTIVATED, HEARTBEAT_DEAD, TOO_MANY_IPS", async () => {
    const license = await newLicense({ maxMachines: 2, maxIps: 1, heartbeatSeconds: 10 });
    const live = await activated(license, "live");
    const dying = await activated(license, "dying");
    await silentFor(dying.id, 30);
    // The one address is taken by another client.
    const taken = await validate(
      { key: license.key, fingerprint: "live", ip: "192.0.2.9" },
      { "x-api-key": w.globalKey },
    );
    expect((await readJson(taken)).code).toBe("VALID");

    const code = async (body: Record<string, unknown>) =>
      (await readJson(await validate({ key: license.key, ...body }))).code;
    // Everything wrong at once: the product first.
    expect(await code({ productId: String(w.productB.id) })).toBe("PRODUCT_MISMATCH");
    expect(await code({})).toBe("FINGERPRINT_REQUIRED");
    expect(await code({ fingerprint: "stranger" })).toBe("NOT_ACTIVATED");
    expect(await code({ fingerprint: "dying" })).toBe("HEARTBEAT_DEAD");
    expect(await code({ fingerprint: "live" })).toBe("TOO_MANY_IPS");
    expect(live.alive).toBe(true);
  });

  test("VALID adds machines {count, max} and the machine; the whole answer's shape", async () => {
    const license = await newLicense({ maxMachines: 3, maxIps: 5 });
    const machine = await activated(license, "mine");
    await activated(license, "other");
    const response = await validate({ key: license.key, fingerprint: "mine", nonce: "v" });
    expect(response.status).toBe(200);
    expect(await verifiedJson(response)).toEqual({
      valid: true,
      code: "VALID",
      detail: "This license is valid.",
      ts: expect.stringMatching(ISO),
      nonce: "v",
      license: expect.objectContaining({
        id: license.id,
        maxMachines: 3,
        floating: false,
        heartbeatSeconds: null,
      }),
      ips: { count: 1, max: 5 },
      machines: { count: 2, max: 3 },
      machine: { ...machine, lastHeartbeatAt: expect.stringMatching(ISO) },
    });
    const refused = await readJson(await validate({ key: license.key }));
    expect(refused).toMatchObject({
      valid: false,
      code: "FINGERPRINT_REQUIRED",
      detail: "This license is bound to machines: a fingerprint is required.",
      machines: { count: 2, max: 3 },
    });
    expect("machine" in refused).toBe(false);
    const unknown = await readJson(await validate({ key: license.key, fingerprint: "nope" }));
    expect(unknown).toMatchObject({
      code: "NOT_ACTIVATED",
      detail: "This machine is not activated for this license.",
      machine: null,
    });
  });

  test("a license without maxMachines answers byte for byte as before (same keys, same values)", async () => {
    const license = await newLicense({ maxIps: 2 });
    const body = await readJson(await validate({ key: license.key, nonce: "x" }));
    expect(Object.keys(body)).toEqual(["valid", "code", "detail", "ts", "nonce", "license", "ips"]);
    expect(Object.keys(body.license)).toEqual([
      "id",
      "userId",
      "creatorId",
      "productId",
      "expires",
      "maxIps",
      "key",
      "createdAt",
      "updatedAt",
    ]);
    expect(body).toMatchObject({ valid: true, code: "VALID", ips: { count: 1, max: 2 } });
  });

  test("a fingerprint on a license without maxMachines: the code as before, machines {count, max: null} and the machine", async () => {
    const license = await newLicense({ maxIps: 3 });
    const machine = await activated(license, "optional");
    const body = await readJson(await validate({ key: license.key, fingerprint: "optional" }));
    expect(body).toMatchObject({
      code: "VALID",
      machines: { count: 1, max: null },
      machine: { id: machine.id, alive: true },
    });
    const unknown = await readJson(await validate({ key: license.key, fingerprint: "other" }));
    expect(unknown).toMatchObject({ code: "VALID", machines: { count: 1, max: null }, machine: null });
  });

  test("a bad fingerprint in validate → 422", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const response = await validate({ key: license.key, fingerprint: "" });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      fingerprint: ["The fingerprint field is required."],
    });
  });
});

describe("machine-bound license files", () => {
  const jwsOf = (file: string) =>
    file
      .replace("-----BEGIN DEPOT LICENSE FILE-----", "")
      .replace("-----END DEPOT LICENSE FILE-----", "")
      .replace(/\s+/g, "");
  const verify = (file: string) =>
    jwtVerify(jwsOf(file), createLocalJWKSet(jwks), {
      typ: "depot-license+jwt",
      issuer: "http://depot.test",
      algorithms: ["EdDSA"],
    });

  test("checkout with a fingerprint: the file's claims carry it, verified by jose", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const machine = await activated(license, "bound");
    const response = await post(base, "/api/v1/licenses/checkout", {
      key: license.key,
      fingerprint: "bound",
    });
    expect(response.status).toBe(200);
    const body = await readJson(response);
    expect(body.code).toBe("VALID");
    const { payload } = await verify(body.license_file);
    expect(payload).toMatchObject({
      sub: license.id,
      key: license.key,
      fingerprint: "bound",
      machine_id: machine.id,
    });
  });

  test("only for an alive machine: a dead or unknown fingerprint gets no file", async () => {
    const uncounted = await newLicense({ heartbeatSeconds: 10 });
    const dead = await activated(uncounted, "dead");
    await silentFor(dead.id, 60);
    for (const fingerprint of ["dead", "unknown"]) {
      const body = await readJson(
        await post(base, "/api/v1/licenses/checkout", { key: uncounted.key, fingerprint }),
      );
      // The license itself is valid (it counts no machines), but no file is bound to a machine that is not alive.
      expect(body.code).toBe("VALID");
      expect(body.machine === null || body.machine.alive === false).toBe(true);
      expect(body.license_file).toBeUndefined();
    }
    const counted = await newLicense({ maxMachines: 1 });
    const body = await readJson(
      await post(base, "/api/v1/licenses/checkout", { key: counted.key, fingerprint: "x" }),
    );
    expect(body).toMatchObject({ valid: false, code: "NOT_ACTIVATED" });
    expect(body.license_file).toBeUndefined();
  });

  test("offline activation: the answer carries the machine-bound file; a floating file ends with its lease", async () => {
    const license = await newLicense({ maxMachines: 1, floating: true, heartbeatSeconds: 600 });
    const response = await activate({
      key: license.key,
      fingerprint: "air-gapped",
      platform: "linux-x64",
      offline: true,
    });
    expect(response.status).toBe(201);
    const body = await readJson(response);
    const { payload } = await verify(body.license_file);
    expect(payload).toMatchObject({ fingerprint: "air-gapped", machine_id: body.machine.id });
    const lease = Date.parse(body.machine.lastHeartbeatAt) / 1000 + 660;
    expect(payload.exp).toBe(Math.floor(lease));
    expect(body.license_file_expires_at).toBe(new Date((payload.exp ?? 0) * 1000).toISOString());

    const nodeLocked = await newLicense({ maxMachines: 1 });
    const locked = await readJson(
      await activate({ key: nodeLocked.key, fingerprint: "vault", offline: true, ttl: 7 * 86_400 }),
    );
    const claims = (await verify(locked.license_file)).payload;
    expect((claims.exp ?? 0) - (claims.iat ?? 0)).toBe(7 * 86_400);
  });
});

describe("the dashboard's lists: seats used / max", () => {
  test("a product's licenses show max_machines and the alive machine_count; created with machine settings", async () => {
    const vendor = await tokenFor(t.ctx, w.creatorA);
    const created = await fetch(`${base}/api/products/${w.productA.id}/licenses`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(vendor) },
      body: JSON.stringify({ owner_email: w.owner.email, max_machines: 2, floating: true }),
    });
    expect(created.status).toBe(201);
    const { data } = await readJson(created);
    expect(data).toMatchObject({ max_machines: 2, machine_count: 0 });
    const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, data.id));
    expect(row).toMatchObject({ maxMachines: 2, floating: true, heartbeatSeconds: 600 });
    const refused = await fetch(`${base}/api/products/${w.productA.id}/licenses`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(vendor) },
      body: JSON.stringify({ owner_email: w.owner.email, max_machines: -1, heartbeat_seconds: 5 }),
    });
    expect(refused.status).toBe(422);
    expect((await readJson(refused)).errors).toEqual({
      max_machines: ["The max machines field must be at least 0."],
      heartbeat_seconds: ["The heartbeat seconds field must be at least 10."],
    });

    const alive = await activated({ ...data, key: data.key } as License, "one");
    const dead = await activated({ ...data, key: data.key } as License, "two");
    await silentFor(dead.id, 3600);
    const list = await readJson(
      await fetch(`${base}/api/products/${w.productA.id}/licenses?search=${data.key}`, {
        headers: bearer(vendor),
      }),
    );
    expect(list.data).toEqual([expect.objectContaining({ id: data.id, max_machines: 2, machine_count: 1 })]);
    expect(alive.alive).toBe(true);
  });

  test("the owner's licenses carry max_machines and their machines", async () => {
    const license = await newLicense({ maxMachines: 3 });
    const machine = await activated(license, "listed", { name: "Desk" });
    const token = await tokenFor(t.ctx, w.owner);
    const body = await readJson(await fetch(`${base}/api/licenses?per_page=100`, { headers: bearer(token) }));
    const mine = body.data.find((l: { id: string }) => l.id === license.id);
    expect(mine).toMatchObject({
      max_machines: 3,
      machines: [
        {
          id: machine.id,
          fingerprint: "listed",
          name: "Desk",
          platform: null,
          hostname: null,
          created_at: expect.stringMatching(ISO),
          last_seen_at: expect.stringMatching(ISO),
          alive: true,
        },
      ],
    });
  });
});

describe("the owner's offline exchange: POST /api/licenses/{id}/machines/offline", () => {
  const encode = (request: unknown) => Buffer.from(JSON.stringify(request)).toString("base64");
  const exchange = (licenseId: string, body: unknown, token: string) =>
    fetch(`${base}/api/licenses/${licenseId}/machines/offline`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(token) },
      body: JSON.stringify(body),
    });

  test("a pasted request → 201 with the machine and its file, verified by jose; again → 200", async () => {
    const license = await newLicense({ maxMachines: 1 });
    const token = await tokenFor(t.ctx, w.owner);
    const request = { v: 1, key: license.key, fingerprint: "vault-7", name: "Vault", platform: "linux-x64" };
    // As a terminal would wrap it.
    const pasted = encode(request).replace(/(.{40})/g, "$1\n");
    const response = await exchange(license.id, { request: pasted }, token);
    expect(response.status).toBe(201);
    const body = await readJson(response);
    expect(body).toEqual({
      data: {
        machine: expect.objectContaining({
          fingerprint: "vault-7",
          name: "Vault",
          platform: "linux-x64",
          alive: true,
        }),
        license_file: expect.stringContaining("-----BEGIN DEPOT LICENSE FILE-----"),
        license_file_expires_at: expect.stringMatching(ISO),
      },
    });
    const jws = body.data.license_file.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
    const { payload } = await jwtVerify(jws, createLocalJWKSet(jwks), { typ: "depot-license+jwt" });
    expect(payload).toMatchObject({
      sub: license.id,
      fingerprint: "vault-7",
      machine_id: body.data.machine.id,
    });
    // URL-safe base64 without padding is taken too.
    const urlSafe = Buffer.from(JSON.stringify(request)).toString("base64url");
    expect((await exchange(license.id, { request: urlSafe }, token)).status).toBe(200);
    // The seat is taken like any other.
    const second = await exchange(
      license.id,
      { request: encode({ ...request, fingerprint: "vault-8" }) },
      token,
    );
    expect(second.status).toBe(409);
    expect((await readJson(second)).code).toBe("TOO_MANY_MACHINES");
  });

  test("malformed requests, another license's key, someone else's license: 422 / 404, nothing written", async () => {
    const license = await newLicense({ maxMachines: 2 });
    const other = await newLicense({ maxMachines: 2 });
    const token = await tokenFor(t.ctx, w.owner);
    const cases: [unknown, string][] = [
      [{ request: "!!!" }, "The activation request is not base64."],
      [
        { request: Buffer.from("not json").toString("base64") },
        "The activation request is not base64 of a JSON object.",
      ],
      [
        { request: encode({ v: 2, key: license.key, fingerprint: "x" }) },
        "The activation request is not a depot activation request (v is missing or invalid).",
      ],
      [
        { request: encode({ v: 1, key: license.key, fingerprint: "a\u0007b" }) },
        "The activation request is not a depot activation request (fingerprint is missing or invalid).",
      ],
      [
        { request: encode({ v: 1, key: other.key, fingerprint: "x" }) },
        "The activation request is for another license.",
      ],
    ];
    for (const [body, message] of cases) {
      const response = await exchange(license.id, body, token);
      expect(response.status).toBe(422);
      expect(await readJson(response)).toEqual({ message, errors: { request: [message] } });
    }
    const noRequest = await exchange(license.id, {}, token);
    expect(noRequest.status).toBe(422);
    expect((await readJson(noRequest)).errors).toEqual({ request: ["The request field is required."] });
    const stranger = await tokenFor(t.ctx, w.creatorB);
    const theirs = await exchange(
      license.id,
      { request: encode({ v: 1, key: license.key, fingerprint: "x" }) },
      stranger,
    );
    expect(theirs.status).toBe(404);
    expect(await machineRows(license.id)).toEqual([]);
    expect(await machineRows(other.id)).toEqual([]);
  });
});

describe("50 simultaneous activations of 50 fingerprints never exceed maxMachines", () => {
  async function raceRounds(app: TestApp, rounds = 3) {
    const rw = await licenseWorld(app.ctx);
    const url = app.listen();
    for (let round = 0; round < rounds; round++) {
      const license = (await licenseIn(app, rw, { maxMachines: 3 })) as License;
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const response = await activateAt(url, { key: license.key, fingerprint: `racer-${i}` });
          return { status: response.status, body: await readJson(response) };
        }),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 409)).toHaveLength(47);
      for (const answer of answers.filter((a) => a.status === 409))
        expect(answer.body.code).toBe("TOO_MANY_MACHINES");
      const rows = await app.ctx.db.select().from(machines).where(eq(machines.licenseId, license.id));
      expect(rows.map((row) => row.fingerprint).toSorted()).toEqual(
        answers
          .filter((a) => a.status === 201)
          .map((a) => a.body.machine.fingerprint)
          .toSorted(),
      );
    }
  }

  testOnBothDatabases(raceRounds, { timeoutMs: 90_000 });
});
