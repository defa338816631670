import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { machineActivations, machines } from "../src/db/schema/index.ts";
import { readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { type LicenseWorld, licenseIn, licenseWorld } from "./helpers/factories.ts";
import { fetchJwks, type Jwks, readSigned, verifyAnswer } from "./helpers/verify-signature.ts";

/**
 * What the client libraries need of the machine routes (issue 32): a heartbeat takes `?nonce=` and
 * its signed answer echoes it, as validate's does; and the coded refusals of activate and heartbeat
 * echo the request's nonce too (null when none was sent), so a refusal recorded earlier and replayed
 * by a fake server is told from a fresh one. Every answer here is checked as signed.
 */

setDefaultTimeout(30_000);

let t: TestApp;
let w: LicenseWorld;
let base: string;
let jwks: Jwks;

beforeAll(async () => {
  t = await startTestApp({ env: { MACHINE_ACTIVATIONS_PER_DAY: "2" } });
  w = await licenseWorld(t.ctx);
  base = t.listen();
  jwks = await fetchJwks(base);
});
afterAll(() => t.close());

const activate = (body: Record<string, unknown>) =>
  fetch(`${base}/api/v1/licenses/activate`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const heartbeat = (id: string, key: string, nonce?: string) =>
  fetch(
    `${base}/api/v1/machines/${id}/heartbeat${nonce === undefined ? "" : `?nonce=${encodeURIComponent(nonce)}`}`,
    {
      method: "POST",
      headers: { authorization: `License ${key}` },
    },
  );

/** The answer's status and body, once its signature verified against the published keys. */
async function signed(response: Response) {
  const message = await readSigned(response);
  expect((await verifyAnswer(message, jwks)).ok).toBe(true);
  return { status: message.status, body: JSON.parse(new TextDecoder().decode(message.body)) };
}

async function activated(key: string, fingerprint: string) {
  const answer = await signed(await activate({ key, fingerprint }));
  expect(answer.status).toBe(201);
  return answer.body.machine as { id: string; fingerprint: string };
}

describe("POST /api/v1/machines/{id}/heartbeat?nonce=", () => {
  test("the answer echoes the nonce, null when none was sent; one longer than 200 characters → 422", async () => {
    const license = await licenseIn(t, w, { maxMachines: 1, heartbeatSeconds: 60 });
    const machine = await activated(license.key, "beating");
    const answer = await signed(await heartbeat(machine.id, license.key, "n-1 ✓"));
    expect(answer).toEqual({
      status: 200,
      body: { machine: expect.objectContaining({ id: machine.id, alive: true }), nonce: "n-1 ✓" },
    });
    expect(Object.keys(answer.body)).toEqual(["machine", "nonce"]);
    expect((await signed(await heartbeat(machine.id, license.key))).body.nonce).toBeNull();
    const long = await signed(await heartbeat(machine.id, license.key, "x".repeat(201)));
    expect(long).toEqual({
      status: 422,
      body: {
        message: "The nonce field must not be greater than 200 characters.",
        errors: { nonce: ["The nonce field must not be greater than 200 characters."] },
      },
    });
    expect((await signed(await heartbeat(machine.id, license.key, "x".repeat(200)))).status).toBe(200);
  });

  test("its coded refusals echo it: 404 NOT_FOUND (unknown, malformed, another license's), 410, 403", async () => {
    const license = await licenseIn(t, w, { maxMachines: 1, heartbeatSeconds: 10 });
    const other = await licenseIn(t, w, { maxMachines: 1 });
    const machine = await activated(license.key, "refused");
    const notFound = { code: "NOT_FOUND", message: "Machine not found.", nonce: "n-404" };
    for (const [id, key] of [
      [crypto.randomUUID(), license.key],
      ["not-a-uuid", license.key],
      [machine.id, other.key],
      [machine.id, "not-a-key"],
    ] as const) {
      expect(await signed(await heartbeat(id, key, "n-404"))).toEqual({ status: 404, body: notFound });
    }
    await t.ctx.db
      .update(machines)
      .set({ lastHeartbeatAt: sql`clock_timestamp() - interval '1 hour'` })
      .where(eq(machines.id, machine.id));
    expect(await signed(await heartbeat(machine.id, license.key, "n-410"))).toEqual({
      status: 410,
      body: {
        code: "HEARTBEAT_DEAD",
        message: "This machine missed its heartbeats; activate it again.",
        nonce: "n-410",
      },
    });
    await fetch(`${base}/api/v1/licenses/${license.id}`, {
      method: "DELETE",
      headers: { "x-api-key": w.globalKey },
    });
    expect(await signed(await heartbeat(machine.id, license.key))).toEqual({
      status: 403,
      body: { code: "REVOKED", message: "This license has been revoked.", nonce: null },
    });
  });
});

describe("POST /api/v1/licenses/activate: coded refusals echo the nonce", () => {
  test("404, 403, 409 and 429 carry the request's nonce (null when none)", async () => {
    const unknown = await signed(
      await activate({ key: "00000-00000-00000-00000-00000", fingerprint: "a", nonce: "n-1" }),
    );
    expect(unknown).toEqual({
      status: 404,
      body: { code: "NOT_FOUND", message: "No license has this key.", nonce: "n-1" },
    });
    const expired = await licenseIn(t, w, { maxMachines: 1, expires: "2020-01-01T00:00:00Z" });
    expect(await signed(await activate({ key: expired.key, fingerprint: "a", nonce: "n-2" }))).toEqual({
      status: 403,
      body: { code: "EXPIRED", message: "This license expired at 2020-01-01T00:00:00.000Z.", nonce: "n-2" },
    });
    const full = await licenseIn(t, w, { maxMachines: 1 });
    await activated(full.key, "first");
    expect(await signed(await activate({ key: full.key, fingerprint: "second", nonce: "n-3" }))).toEqual({
      status: 409,
      body: {
        code: "TOO_MANY_MACHINES",
        message: "This license is already active on its maximum of 1 machine.",
        nonce: "n-3",
      },
    });
    const busy = await licenseIn(t, w, { maxMachines: 5 });
    await t.ctx.db.insert(machineActivations).values([{ licenseId: busy.id }, { licenseId: busy.id }]);
    const bounded = await activate({ key: busy.key, fingerprint: "third", nonce: "n-4" });
    expect(bounded.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await signed(bounded)).toEqual({
      status: 429,
      body: {
        code: "TOO_MANY_ACTIVATIONS",
        message: expect.stringMatching(/^This license has made its 2 activations of the last 24 hours/),
        nonce: "n-4",
      },
    });
    expect((await signed(await activate({ key: full.key, fingerprint: "second" }))).body.nonce).toBeNull();
  });
});

describe("the document says so", () => {
  test("MachineRefusalJson has a nonce; the heartbeat takes ?nonce= and answers it", async () => {
    const document = await readJson(await t.request("/docs/json"));
    const schemaOf = (path: string, method: string, status: string) =>
      document.paths[path][method].responses[status].content["application/json"].schema;
    for (const [path, status] of [
      ["/api/v1/licenses/activate", "409"],
      ["/api/v1/licenses/activate", "429"],
      ["/api/v1/machines/{id}/heartbeat", "404"],
      ["/api/v1/machines/{id}/heartbeat", "410"],
      ["/api/v1/machines/{id}/heartbeat", "200"],
    ] as const) {
      const schema = schemaOf(path, "post", status);
      expect(schema.required).toContain("nonce");
      expect(Object.keys(schema.properties)).toContain("nonce");
    }
    const parameters = document.paths["/api/v1/machines/{id}/heartbeat"].post.parameters;
    expect(parameters).toContainEqual(
      expect.objectContaining({ name: "nonce", in: "query", required: false }),
    );
    const deactivate = document.paths["/api/v1/machines/{id}"].delete;
    expect(deactivate.parameters).toContainEqual(expect.objectContaining({ name: "force", in: "query" }));
    expect(schemaOf("/api/v1/machines/{id}", "delete", "409").required).toEqual(
      expect.arrayContaining(["code", "message", "fileExpiresAt"]),
    );
  });
});
