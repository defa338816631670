import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type License, licenseIps, licenses } from "../src/db/schema/index.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { apiKeyFor, createProduct, createPurchase, createUser, tokenFor } from "./helpers/factories.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

// Changing an existing license's settings from its product's page
// (PATCH /api/products/{product}/licenses/{license}) over a real socket and database: the machine
// settings (max_machines, floating, heartbeat_seconds) and the rest the vendor sets at creation
// (expires, max_ips), validated exactly as the x-api-key PATCH validates, nothing written on a refusal.

let t: TestApp;
let base: string;
const PASSWORD = "correct horse battery";
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let vendor: Awaited<ReturnType<typeof createUser>>;
let customer: Awaited<ReturnType<typeof createUser>>;
let product: Awaited<ReturnType<typeof createProduct>>;
let hidden: Awaited<ReturnType<typeof createProduct>>;
let session: { cookie: string; csrf: string };
const as: Record<string, string> = {};
let apiKey: string;

beforeAll(async () => {
  t = await startTestApp();
  base = t.listen();
  vendor = await userWithPassword(t.ctx, PASSWORD, { role: "vendor" });
  customer = await createUser(t.ctx, { name: "Carla Customer" });
  const stranger = await createUser(t.ctx, { role: "vendor" });
  const admin = await createUser(t.ctx, { role: "admin" });
  product = await createProduct(t.ctx, vendor);
  hidden = await createProduct(t.ctx, vendor, { hidden: true });
  await createPurchase(t.ctx, customer, product);
  session = await signIn(base, vendor.email, PASSWORD);
  as.vendor = await tokenFor(t.ctx, vendor);
  as.narrowed = await tokenFor(t.ctx, vendor, ["versions.publish"]);
  as.stranger = await tokenFor(t.ctx, stranger);
  as.customer = await tokenFor(t.ctx, customer);
  as.admin = await tokenFor(t.ctx, admin);
  apiKey = (await apiKeyFor(t.ctx)).key;
}, 60_000);
afterAll(() => t.close());

const jsonBody = (body: unknown) =>
  typeof body === "string" ? body : body === undefined ? undefined : JSON.stringify(body);
const withSession = (method: string, body?: unknown, csrf = true): RequestInit => {
  const headers = sessionHeaders(session);
  if (!csrf) delete headers["x-csrf-token"];
  return { method, headers: { ...headers, "content-type": "application/json" }, body: jsonBody(body) };
};
const withToken = (token: string, method: string, body?: unknown): RequestInit => ({
  method,
  headers: { ...bearer(token), "content-type": "application/json" },
  body: jsonBody(body),
});
const licenseAt = (productId: number, id: string) => `${base}/api/products/${productId}/licenses/${id}`;
const patch = (productId: number, id: string, body: unknown) =>
  fetch(licenseAt(productId, id), withSession("PATCH", body));

/** A license of `productId` for the customer, made through the product's page. */
async function newLicense(productId: number, extra: Record<string, unknown> = {}) {
  const response = await fetch(
    `${base}/api/products/${productId}/licenses`,
    withSession("POST", { owner_email: customer.email, ...extra }),
  );
  if (response.status !== 201)
    throw new Error(`create answered ${response.status}: ${await response.text()}`);
  return (await readJson(response)).data as { id: string; key: string };
}

const rowOf = async (id: string): Promise<License> => {
  const [row] = await t.ctx.db.select().from(licenses).where(eq(licenses.id, id));
  if (!row) throw new Error(`no license ${id}`);
  return row;
};

const apiCall = (method: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method,
    headers: { "x-api-key": apiKey, "content-type": "application/json" },
    body: jsonBody(body),
  });
const activate = (key: string, fingerprint: string) =>
  apiCall("POST", "/api/v1/licenses/activate", { key, fingerprint });

describe("PATCH /api/products/{product}/licenses/{license}", () => {
  test("the owner's session changes the machine settings: 200 with the license as the list shows it", async () => {
    const license = await newLicense(product.id);
    const response = await patch(product.id, license.id, {
      max_machines: 3,
      floating: true,
      heartbeat_seconds: 120,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: license.id,
      key: license.key,
      owner: { id: customer.id, name: "Carla Customer", email: customer.email },
      expires: null,
      revoked: false,
      status: "active",
      max_ips: t.ctx.config.licenseDefaultMaxIps,
      ip_count: 0,
      max_machines: 3,
      machine_count: 0,
      floating: true,
      heartbeat_seconds: 120,
      machine_file_ttl_max: null,
      policy_id: null,
      created_at: expect.stringMatching(ISO),
    });
    expect(await rowOf(license.id)).toMatchObject({ maxMachines: 3, floating: true, heartbeatSeconds: 120 });
    // The license API reads the same change, in its camelCase.
    const read = await readJson(await apiCall("GET", `/api/v1/licenses/${license.id}`));
    expect(read.licenses[0]).toMatchObject({ maxMachines: 3, floating: true, heartbeatSeconds: 120 });
    // And back: null machines are uncounted again, no heartbeats on a node-locked license.
    const back = await patch(product.id, license.id, {
      max_machines: null,
      floating: false,
      heartbeat_seconds: null,
    });
    expect(back.status).toBe(200);
    expect((await readJson(back)).data).toMatchObject({
      max_machines: null,
      floating: false,
      heartbeat_seconds: null,
    });
    expect(await rowOf(license.id)).toMatchObject({
      maxMachines: null,
      floating: false,
      heartbeatSeconds: null,
    });
  });

  test("expires and max_ips as well; only the fields sent change, and {} changes nothing", async () => {
    const license = await newLicense(product.id, { max_machines: 2, expires: "2030-01-31T00:00:00Z" });
    const before = await rowOf(license.id);
    const same = await patch(product.id, license.id, {});
    expect(same.status).toBe(200);
    expect((await readJson(same)).data).toMatchObject({
      expires: "2030-01-31T00:00:00.000Z",
      max_machines: 2,
    });
    expect((await rowOf(license.id)).updatedAt).toEqual(before.updatedAt);

    const changed = await patch(product.id, license.id, { expires: "2031-06-30T23:59:59Z", max_ips: 7 });
    expect(changed.status).toBe(200);
    expect((await readJson(changed)).data).toMatchObject({
      expires: "2031-06-30T23:59:59.000Z",
      max_ips: 7,
      max_machines: 2,
    });
    const never = await patch(product.id, license.id, { expires: null });
    expect((await readJson(never)).data).toMatchObject({ expires: null, status: "active", max_ips: 7 });
    // As the license API's PATCH: a date already past is taken, and the license reads as expired.
    const past = await patch(product.id, license.id, { expires: "2020-01-01" });
    expect(past.status).toBe(200);
    expect((await readJson(past)).data).toMatchObject({ status: "expired" });
  });

  test("seats: machine_count / max_machines after the change; lowering it deactivates none, new ones wait", async () => {
    const license = await newLicense(product.id, { max_machines: 3 });
    for (const fingerprint of ["one", "two"])
      expect((await activate(license.key, fingerprint)).status).toBe(201);
    const lowered = await patch(product.id, license.id, { max_machines: 1 });
    expect((await readJson(lowered)).data).toMatchObject({ max_machines: 1, machine_count: 2 });
    const refused = await activate(license.key, "three");
    expect(refused.status).toBe(409);
    expect((await readJson(refused)).code).toBe("TOO_MANY_MACHINES");
    const raised = await patch(product.id, license.id, { max_machines: 5 });
    expect((await readJson(raised)).data).toMatchObject({ max_machines: 5, machine_count: 2 });
    expect((await activate(license.key, "three")).status).toBe(201);
    const listed = await readJson(
      await fetch(`${base}/api/products/${product.id}/licenses?search=${license.key}`, withSession("GET")),
    );
    expect(listed.data).toEqual([
      expect.objectContaining({ id: license.id, max_machines: 5, machine_count: 3 }),
    ]);
  });

  test("lowering max_ips forgets the least recently seen addresses, as the license API's PATCH", async () => {
    const license = await newLicense(product.id, { max_ips: 3 });
    const now = Date.now();
    await t.ctx.db.insert(licenseIps).values(
      ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((ip, i) => ({
        licenseId: license.id,
        ip,
        firstSeenAt: new Date(now - 10_000),
        lastSeenAt: new Date(now - 3_000 + i * 1_000),
      })),
    );
    const response = await patch(product.id, license.id, { max_ips: 1 });
    expect((await readJson(response)).data).toMatchObject({ max_ips: 1, ip_count: 1 });
    const left = await t.ctx.db.select().from(licenseIps).where(eq(licenseIps.licenseId, license.id));
    expect(left.map((row) => row.ip)).toEqual(["192.0.2.3"]);
  });

  test("floating without an interval gets 600; setting none on a floating license is a 422, nothing written", async () => {
    const license = await newLicense(product.id);
    const floating = await patch(product.id, license.id, { floating: true });
    expect((await readJson(floating)).data).toMatchObject({ floating: true, heartbeat_seconds: 600 });
    const before = await rowOf(license.id);
    // Decided against the row (it is floating): the same words as the form's.
    const none = await patch(product.id, license.id, { heartbeat_seconds: null, max_machines: 4 });
    expect(none.status).toBe(422);
    expect(await readJson(none)).toEqual({
      message: "The heartbeat seconds field is required when the license is floating.",
      errors: {
        heartbeat_seconds: ["The heartbeat seconds field is required when the license is floating."],
      },
    });
    expect(await rowOf(license.id)).toEqual(before);
  });

  test("every field's failure in one 422, the license API's PATCH rules in snake_case; nothing written", async () => {
    const license = await newLicense(product.id, { max_machines: 2 });
    const before = await rowOf(license.id);
    const response = await patch(product.id, license.id, {
      expires: "31/12/2030",
      max_ips: 0,
      max_machines: -1,
      floating: "yes",
      heartbeat_seconds: 5,
      machine_file_ttl_max: 60,
    });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = await readJson(response);
    expect(body).toEqual({
      // The message names the first field's error, in the body's field order (as errors lists them).
      message: "The expires field must be a valid ISO 8601 date-time. (and 5 more errors)",
      errors: {
        expires: ["The expires field must be a valid ISO 8601 date-time."],
        max_ips: ["The max ips field must be at least 1."],
        max_machines: ["The max machines field must be between 0 and 10000."],
        floating: ["The floating field must be true or false."],
        heartbeat_seconds: ["The heartbeat seconds field must be between 10 and 86400."],
        machine_file_ttl_max: ["The machine file ttl max field must be between 3600 and 31536000."],
      },
    });
    expect(await rowOf(license.id)).toEqual(before);

    // The same change through the x-api-key PATCH: the same rules and words, in its own names.
    const api = await apiCall("PATCH", `/api/v1/licenses/${license.id}`, {
      expires: "31/12/2030",
      maxIps: 0,
      maxMachines: -1,
      floating: "yes",
      heartbeatSeconds: 5,
      machineFileTtlMax: 60,
    });
    expect(api.status).toBe(422);
    const spoken = (errors: Record<string, string[]>) =>
      Object.entries(errors)
        .map(([field, messages]) => [
          field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
          messages.map((m) =>
            m.replace(
              /The (\w+) field/,
              (_, name: string) => `The ${name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)} field`,
            ),
          ),
        ])
        .sort();
    expect(spoken((await readJson(api)).errors)).toEqual(spoken(body.errors));

    const both = await patch(product.id, license.id, { floating: true, heartbeat_seconds: null });
    expect(both.status).toBe(422);
    expect((await readJson(both)).errors).toEqual({
      heartbeat_seconds: ["The heartbeat seconds field is required when the license is floating."],
    });
    const tooMany = await patch(product.id, license.id, { max_machines: 10_001, heartbeat_seconds: 86_401 });
    expect((await readJson(tooMany)).errors).toEqual({
      max_machines: ["The max machines field must be between 0 and 10000."],
      heartbeat_seconds: ["The heartbeat seconds field must be between 10 and 86400."],
    });
    expect(await rowOf(license.id)).toEqual(before);
  });

  test("fields it does not change (owner, creator, product), unknown ones or a body that is not JSON: 4xx, never 500", async () => {
    const license = await newLicense(product.id);
    const before = await rowOf(license.id);
    for (const [body, field] of [
      [{ owner_email: "x@example.com" }, "owner_email"],
      [{ productId: String(hidden.id), max_machines: 1 }, "productId"],
      [{ creatorId: "1" }, "creatorId"],
    ] as const) {
      const response = await patch(product.id, license.id, body);
      expect(response.status).toBe(422);
      expect((await readJson(response)).errors).toMatchObject({
        [field]: [`The ${field.replace("_", " ")} field is prohibited.`],
      });
    }
    for (const raw of ["{not json", "[1]", "null"]) {
      const response = await patch(product.id, license.id, raw);
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(typeof (await readJson(response)).message).toBe("string");
    }
    expect(await rowOf(license.id)).toEqual(before);
  });

  test("a bearer token too; the admin may change any product's license", async () => {
    const license = await newLicense(product.id);
    for (const [who, max] of [
      ["vendor", 4],
      ["admin", 6],
    ] as const) {
      const response = await fetch(
        licenseAt(product.id, license.id),
        withToken(as[who] ?? "", "PATCH", { max_machines: max }),
      );
      expect(response.status).toBe(200);
      expect((await readJson(response)).data).toMatchObject({ id: license.id, max_machines: max });
    }
    expect((await rowOf(license.id)).maxMachines).toBe(6);
  });

  test("refused: 401, 419 without CSRF, 403 stranger and narrowed token, 404 hidden product and another product's license; nothing changed", async () => {
    const license = await newLicense(product.id, { max_machines: 2 });
    const secret = await newLicense(hidden.id, { max_machines: 2 });
    const change = { max_machines: 9 };
    const cases: [string, RequestInit, number, unknown][] = [
      [
        "anonymous",
        { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(change) },
        401,
        { message: "Unauthenticated." },
      ],
      ["no CSRF", withSession("PATCH", change, false), 419, { message: "CSRF token mismatch." }],
      [
        "stranger",
        withToken(as.stranger ?? "", "PATCH", change),
        403,
        { message: "This action is unauthorized." },
      ],
      [
        "narrowed",
        withToken(as.narrowed ?? "", "PATCH", change),
        403,
        { message: "This action is unauthorized." },
      ],
    ];
    for (const [who, init, status, body] of cases) {
      const response = await fetch(licenseAt(product.id, license.id), init);
      expect({ who, status: response.status, body: await readJson(response) }).toEqual({ who, status, body });
    }
    const unlisted = await fetch(
      licenseAt(hidden.id, secret.id),
      withToken(as.customer ?? "", "PATCH", change),
    );
    expect(unlisted.status).toBe(404);
    expect(await readJson(unlisted)).toEqual({ message: "Product not found." });
    for (const id of [secret.id, crypto.randomUUID(), "not-a-uuid"]) {
      const response = await patch(product.id, id, change);
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "License not found." });
    }
    expect((await rowOf(license.id)).maxMachines).toBe(2);
    expect((await rowOf(secret.id)).maxMachines).toBe(2);
  });
});
