import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { webhookAttempts, webhookDeliveries, webhooks } from "../src/db/schema/index.ts";
import { bearer, json, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { publishedVersion } from "./helpers/publish.ts";
import { sessionHeaders, signIn, userWithPassword } from "./helpers/sessions.ts";

// "Send again" (POST /api/webhooks/{id}/deliveries/{delivery}/resend) through the real pg-boss worker
// to a real receiver on loopback (hence WEBHOOK_ALLOW_PRIVATE): the same delivery, same webhook-id,
// signed afresh and verified with the Standard Webhooks reference package; refusals change nothing.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PASSWORD = "correct horse battery";
let t: TestApp;
let base: string;
const servers: ReturnType<typeof Bun.serve>[] = [];

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" }, jobs: "workers" });
  base = t.listen();
}, 60_000);
afterAll(async () => {
  for (const server of servers) await server.stop(true);
  await t.close();
});

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on loopback; `status(n)` is the answer to the n-th request (from 1). */
function receiver(status: (n: number) => number = () => 204) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(null, { status: status(received.length) });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/hook`, received };
}

async function eventually(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

async function register(token: string, url: string) {
  const response = await fetch(`${base}/api/webhooks`, json({ url }, { token }));
  expect(response.status).toBe(201);
  return (await readJson(response)).data as { id: number; secret: string };
}

async function deliveriesOf(token: string, webhookId: number) {
  const response = await fetch(`${base}/api/webhooks/${webhookId}/deliveries`, { headers: bearer(token) });
  expect(response.status).toBe(200);
  // biome-ignore lint/suspicious/noExplicitAny: asserted field by field
  return (await readJson(response)).data as any[];
}

const resendPath = (webhookId: number, deliveryId: string) =>
  `${base}/api/webhooks/${webhookId}/deliveries/${deliveryId}/resend`;

let subject = 1_000;
/** A delivery row made directly with `status`, as the worker leaves a finished one. */
async function deliveryRow(webhookId: number, status: "failed" | "succeeded") {
  const id = crypto.randomUUID();
  const payload = { type: "version.published", timestamp: new Date().toISOString(), data: { n: ++subject } };
  await t.ctx.db
    .insert(webhookDeliveries)
    .values({ id, webhookId, event: "version.published", subjectId: subject, payload, status, attempts: 1 });
  await t.ctx.db
    .insert(webhookAttempts)
    .values({ deliveryId: id, attempt: 1, statusCode: 500, durationMs: 3 });
  return id;
}

describe("POST /api/webhooks/{id}/deliveries/{delivery}/resend", () => {
  test("a delivered publish sent again: 202 pending, then the receiver gets the same webhook-id, signed afresh", async () => {
    const owner = await createUser(t.ctx, { role: "vendor" });
    const token = await tokenFor(t.ctx, owner);
    const product = await createProduct(t.ctx, owner);
    const hook = receiver();
    const endpoint = await register(token, hook.url);
    const version = await publishedVersion(base, token, product.id, { name: "1.0.0", bytes: "release" });
    expect(await eventually(() => hook.received.length === 1)).toBe(true);
    expect(
      await eventually(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === "succeeded"),
    ).toBe(true);
    const [delivered] = await deliveriesOf(token, endpoint.id);

    const response = await fetch(resendPath(endpoint.id, delivered.id), {
      method: "POST",
      headers: bearer(token),
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toContain("application/json");
    const { data } = await readJson(response);
    expect(data).toEqual({
      id: delivered.id,
      event: "version.published",
      status: "pending",
      payload: delivered.payload,
      attempts: [
        {
          attempt: 1,
          status_code: 204,
          duration_ms: expect.any(Number),
          error: null,
          created_at: expect.stringMatching(ISO),
        },
      ],
      last_attempt_at: expect.stringMatching(ISO),
      created_at: delivered.created_at,
    });
    expect(data.payload.data.version_id).toBe(version.id);

    expect(await eventually(() => hook.received.length === 2)).toBe(true);
    const [first, second] = hook.received as [Received, Received];
    expect(second.headers["webhook-id"]).toBe(delivered.id);
    expect(second.body).toBe(first.body);
    // A valid Standard Webhooks signature, checked by the reference package, not by our code.
    expect(new Webhook(endpoint.secret.slice("whsec_".length)).verify(second.body, second.headers)).toEqual(
      JSON.parse(first.body),
    );
    expect(
      await eventually(async () => (await deliveriesOf(token, endpoint.id))[0]?.attempts.length === 2),
    ).toBe(true);
    const [after, ...others] = await deliveriesOf(token, endpoint.id);
    expect(others).toEqual([]);
    expect(after).toMatchObject({ id: delivered.id, status: "succeeded" });
    expect(
      after.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
    ).toEqual([
      [1, 204],
      [2, 204],
    ]);
  }, 40_000);

  test("a failed delivery sent again with the dashboard's session reaches a receiver that is back", async () => {
    const owner = await userWithPassword(t.ctx, PASSWORD);
    const session = await signIn(base, owner.email, PASSWORD);
    const token = await tokenFor(t.ctx, owner);
    const hook = receiver();
    const endpoint = await register(token, hook.url);
    const id = await deliveryRow(endpoint.id, "failed");

    const noCsrf = await fetch(resendPath(endpoint.id, id), {
      method: "POST",
      headers: { cookie: session.cookie, "sec-fetch-site": "same-origin" },
    });
    expect(noCsrf.status).toBe(419);
    const response = await fetch(resendPath(endpoint.id, id), {
      method: "POST",
      headers: sessionHeaders(session),
    });
    expect(response.status).toBe(202);
    expect((await readJson(response)).data).toMatchObject({
      id,
      status: "pending",
      attempts: [{ status_code: 500 }],
    });
    expect(await eventually(() => hook.received.length === 1)).toBe(true);
    expect(hook.received[0]?.headers["webhook-id"]).toBe(id);
    expect(
      await eventually(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === "succeeded"),
    ).toBe(true);
  }, 30_000);

  test("refused: no credentials 401, someone else's endpoint 404, a delivery not of this endpoint 404; nothing sent", async () => {
    const owner = await createUser(t.ctx);
    const stranger = await createUser(t.ctx);
    const admin = await createUser(t.ctx, { role: "admin" });
    const token = await tokenFor(t.ctx, owner);
    const hook = receiver();
    const endpoint = await register(token, hook.url);
    const other = await register(token, hook.url);
    const id = await deliveryRow(endpoint.id, "failed");
    const elsewhere = await deliveryRow(other.id, "failed");

    const none = await fetch(resendPath(endpoint.id, id), { method: "POST" });
    expect(none.status).toBe(401);
    expect(await readJson(none)).toEqual({ message: "Unauthenticated." });
    for (const who of [stranger, admin]) {
      const response = await fetch(resendPath(endpoint.id, id), {
        method: "POST",
        headers: bearer(await tokenFor(t.ctx, who)),
      });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Webhook not found." });
    }
    for (const delivery of [elsewhere, crypto.randomUUID(), "not-a-delivery"]) {
      const response = await fetch(resendPath(endpoint.id, delivery), {
        method: "POST",
        headers: bearer(token),
      });
      expect(response.status).toBe(404);
      expect(await readJson(response)).toEqual({ message: "Delivery not found." });
    }
    const garbage = await fetch(`${base}/api/webhooks/abc/deliveries/${id}/resend`, {
      method: "POST",
      headers: bearer(token),
    });
    expect(garbage.status).toBe(404);
    await Bun.sleep(1_000);
    expect(hook.received).toEqual([]);
    const rows = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, endpoint.id));
    expect(rows.map((row) => row.status)).toEqual(["failed"]);
    const otherRows = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, other.id));
    expect(otherRows.map((row) => row.status)).toEqual(["failed"]);
  }, 30_000);

  test("a delivery id in upper case names the same delivery", async () => {
    const token = await tokenFor(t.ctx, await createUser(t.ctx));
    const hook = receiver();
    const endpoint = await register(token, hook.url);
    const id = await deliveryRow(endpoint.id, "failed");
    const response = await fetch(resendPath(endpoint.id, id.toUpperCase()), {
      method: "POST",
      headers: bearer(token),
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect((await readJson(response)).data).toMatchObject({ id, status: "pending" });
    expect(await eventually(() => hook.received.length === 1)).toBe(true);
    expect(hook.received[0]?.headers["webhook-id"]).toBe(id);
  }, 30_000);

  test("an endpoint disabled by a 410: 409 with why, and nothing is sent", async () => {
    const owner = await createUser(t.ctx);
    const token = await tokenFor(t.ctx, owner);
    const hook = receiver();
    const endpoint = await register(token, hook.url);
    const id = await deliveryRow(endpoint.id, "failed");
    await t.ctx.db.update(webhooks).set({ disabledAt: new Date() }).where(eq(webhooks.id, endpoint.id));
    const response = await fetch(resendPath(endpoint.id, id), { method: "POST", headers: bearer(token) });
    expect(response.status).toBe(409);
    expect(await readJson(response)).toEqual({
      message: "This endpoint is disabled (it answered 410 Gone): nothing is sent to it.",
    });
    await Bun.sleep(1_000);
    expect(hook.received).toEqual([]);
    const [row] = await t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    expect(row?.status).toBe("failed");
  }, 30_000);
});
