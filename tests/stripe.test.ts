import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { emailMatches } from "../src/db/email-key.ts";
import { licenses, purchases, stripeEvents, users } from "../src/db/schema/index.ts";
import { withTransaction } from "../src/db/transaction.ts";
import { bearer, readJson, startTestApp, type TestApp } from "./helpers/app.ts";
import { createOption, createProduct, createUser, tokenFor } from "./helpers/factories.ts";
import { type Inbox, startInbox, until } from "./helpers/inbox.ts";

/**
 * Selling through Stripe Checkout (docs/stripe.md): events signed by `stripe`'s own test helper are
 * sent to a listening server byte for byte, and the key reaches a real SMTP server on loopback.
 */

const SECRET = "whsec_test_depot_secret";
const KEY = /^[0-9A-HJKMNP-TV-Z]{5}(-[0-9A-HJKMNP-TV-Z]{5}){4}$/;

const API_KEY = "rk_test_depot_read_checkout";

/**
 * A fake of Stripe's API on loopback: answers `GET /v1/checkout/sessions/:id/line_items` with
 * Stripe's JSON (a list, one price per item, `has_more` paging by `starting_after`), the items set in
 * `sessionItems`; every request is kept in `apiCalls`.
 */
const sessionItems = new Map<string, { price: string; quantity: number; amount_total: number }[]>();
const apiCalls: { path: string; authorization: string | null }[] = [];
/**
 * What another connection could do to stripe_events while depot waited for Stripe: an exclusive lock
 * on the table is refused at once (NOWAIT) while any transaction has written to it and is still open.
 */
const tableLocksWhileFetching: string[] = [];
const fakeStripe = async (request: Request) => {
  const url = new URL(request.url);
  apiCalls.push({ path: url.pathname + url.search, authorization: request.headers.get("authorization") });
  tableLocksWhileFetching.push(
    await withTransaction(t.ctx, (tx) =>
      tx.db.execute(sql`lock table stripe_events in exclusive mode nowait`),
    ).then(
      () => "free",
      (error: Error) => `held: ${error.message}`,
    ),
  );
  const match = /^\/v1\/checkout\/sessions\/([^/]+)\/line_items$/.exec(url.pathname);
  if (request.headers.get("authorization") !== `Bearer ${API_KEY}`) {
    return Response.json(
      { error: { type: "invalid_request_error", message: "Invalid API Key provided: rk_test_***" } },
      { status: 401 },
    );
  }
  const items = match ? sessionItems.get(decodeURIComponent(match[1] as string)) : undefined;
  if (!match || !items) {
    return Response.json(
      {
        error: {
          type: "invalid_request_error",
          code: "resource_missing",
          message: "No such checkout.session",
        },
      },
      { status: 404 },
    );
  }
  const all = items.map((item, i) => ({
    id: `li_${i}`,
    object: "item",
    amount_discount: 0,
    amount_subtotal: item.amount_total,
    amount_tax: 0,
    amount_total: item.amount_total,
    currency: "usd",
    description: "Pro",
    price: {
      id: item.price,
      object: "price",
      currency: "usd",
      unit_amount: item.amount_total / item.quantity,
    },
    quantity: item.quantity,
  }));
  // One item a page, so that depot must follow has_more.
  const after = url.searchParams.get("starting_after");
  const from = after === null ? 0 : all.findIndex((item) => item.id === after) + 1;
  return Response.json({
    object: "list",
    data: all.slice(from, from + 1),
    has_more: from + 1 < all.length,
    url: url.pathname,
  });
};
let stripeApi: ReturnType<typeof Bun.serve>;
const stripeApiPort = () => stripeApi.port as number;

let t: TestApp;
let base: string;
let inbox: Inbox;
let adminToken: string;
let vendorToken: string;
let product: { id: number; name: string };
let option: { id: number };

beforeAll(async () => {
  inbox = await startInbox();
  stripeApi = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: fakeStripe });
  t = await startTestApp({
    env: {
      SMTP_URL: `smtp://127.0.0.1:${inbox.port}`,
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_SECRET_KEY: API_KEY,
      STRIPE_API_URL: `http://127.0.0.1:${stripeApiPort()}`,
    },
    jobs: "workers",
  });
  base = t.listen();
  adminToken = await tokenFor(t.ctx, await createUser(t.ctx, { role: "admin" }));
  const vendor = await createUser(t.ctx, { role: "vendor" });
  vendorToken = await tokenFor(t.ctx, vendor);
  product = await createProduct(t.ctx, vendor);
  option = await createOption(t.ctx, product);
  const saved = await putSettings({
    prices: [
      { price_id: "price_pro", product_id: String(product.id), option_id: String(option.id) },
      { price_id: "price_sub", product_id: String(product.id) },
    ],
  });
  expect(saved.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await t.close();
  await inbox.close();
  stripeApi.stop(true);
}, 15_000);

const putSettings = (body: unknown, token = adminToken) =>
  fetch(`${base}/api/integrations/stripe`, {
    method: "PUT",
    headers: { "content-type": "application/json", ...bearer(token) },
    body: JSON.stringify(body),
  });

let sequence = 0;
const eventId = () => `evt_test_${Date.now()}_${++sequence}`;

/** Posts `event` as Stripe does: the exact bytes, signed with `secret` by stripe's own helper. */
async function send(event: Record<string, unknown>, secret = SECRET, tamper?: (payload: string) => string) {
  const payload = JSON.stringify(event, null, 2);
  const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret });
  return fetch(`${base}/api/integrations/stripe/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": header },
    body: tamper ? tamper(payload) : payload,
  });
}

function checkout(
  email: string,
  session: Record<string, unknown> = {},
  priceId = "price_pro",
): Record<string, unknown> {
  return {
    id: eventId(),
    object: "event",
    type: "checkout.session.completed",
    data: {
      object: {
        id: `cs_test_${sequence}`,
        object: "checkout.session",
        mode: "payment",
        payment_status: "paid",
        payment_intent: `pi_test_${sequence}`,
        customer_details: { email, name: "Stripe Buyer" },
        currency: "usd",
        amount_total: 4900,
        line_items: {
          object: "list",
          data: [{ id: "li_1", quantity: 1, amount_total: 4900, currency: "usd", price: { id: priceId } }],
        },
        ...session,
      },
    },
  };
}

const userByEmail = async (email: string) =>
  (await t.ctx.db.select().from(users).where(emailMatches(users.email, email)))[0];
const licensesOf = (userId: number) => t.ctx.db.select().from(licenses).where(eq(licenses.userId, userId));

describe("checkout.session.completed", () => {
  test("makes the customer, the purchase and the license, and e-mails the key", async () => {
    const email = `stripe-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const event = checkout(email);
    const response = await send(event);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    const receipt = await readJson(response);
    expect(receipt).toMatchObject({ id: event.id, outcome: "processed", duplicate: false });
    expect(receipt.message).toContain(email);

    const buyer = await userByEmail(email);
    expect(buyer?.name).toBe("Stripe Buyer");
    const [license] = await licensesOf(buyer?.id ?? 0);
    expect(license?.productId).toBe(product.id);
    expect(license?.key).toMatch(KEY);
    const [purchase] = await t.ctx.db
      .select()
      .from(purchases)
      .where(eq(purchases.userId, buyer?.id ?? 0));
    expect(purchase).toMatchObject({
      productId: product.id,
      optionId: option.id,
      unitPrice: "49.00",
      quantity: 1,
    });

    const { mail } = await until("the key e-mail", () =>
      inbox.messages.find((m) => m.envelopeTo.includes(email)),
    );
    expect(mail.text).toContain(license?.key ?? "no key");
    expect(mail.text).toContain("/set-password?token=");
  }, 30_000);

  test("the same event again changes nothing and says so", async () => {
    const email = `again-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const event = checkout(email);
    const [first, second] = await Promise.all([send(event), send(event)]);
    const receipts = [await readJson(first), await readJson(second)];
    expect(receipts.map((r) => r.duplicate).sort()).toEqual([false, true]);
    expect(receipts.every((r) => r.outcome === "processed")).toBe(true);
    const buyer = await userByEmail(email);
    expect(await licensesOf(buyer?.id ?? 0)).toHaveLength(1);
  }, 30_000);

  test("a price without a product is a failed event that writes nothing, and is handled once mapped", async () => {
    const email = `unmapped-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const event = checkout(email, {}, "price_later");
    const failed = await readJson(await send(event));
    expect(failed).toMatchObject({ outcome: "failed", duplicate: false });
    expect(failed.message).toBe("No product is set for Stripe price price_later.");
    expect(await userByEmail(email)).toBeUndefined();

    const settings = await readJson(
      await fetch(`${base}/api/integrations/stripe`, { headers: bearer(adminToken) }),
    );
    const prices = settings.data.prices.map((p: Record<string, unknown>) => ({
      price_id: p.price_id,
      product_id: String(p.product_id),
      option_id: p.option_id === null ? null : String(p.option_id),
    }));
    expect(
      (
        await putSettings({
          prices: [...prices, { price_id: "price_later", product_id: String(product.id) }],
        })
      ).status,
    ).toBe(200);
    const retried = await readJson(await send(event));
    expect(retried).toMatchObject({ outcome: "processed", duplicate: false });
    expect(await licensesOf((await userByEmail(email))?.id ?? 0)).toHaveLength(1);
  }, 30_000);

  test("an unpaid (asynchronous) checkout is ignored", async () => {
    const email = `unpaid-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const receipt = await readJson(await send(checkout(email, { payment_status: "unpaid" })));
    expect(receipt.outcome).toBe("ignored");
    expect(await userByEmail(email)).toBeUndefined();
  });
});

describe("line items read from Stripe's API (a real event carries none)", () => {
  /** A checkout event as Stripe sends it: no `line_items`. */
  const bare = (email: string) => {
    const event = checkout(email, { line_items: undefined });
    const session = (event.data as { object: { id: string } }).object;
    return { event, sessionId: session.id };
  };

  test("fetched with STRIPE_SECRET_KEY, every page, and sold", async () => {
    const email = `fetched-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { event, sessionId } = bare(email);
    sessionItems.set(sessionId, [
      { price: "price_pro", quantity: 2, amount_total: 9800 },
      { price: "price_sub", quantity: 1, amount_total: 4900 },
    ]);
    apiCalls.length = 0;
    tableLocksWhileFetching.length = 0;
    const receipt = await readJson(await send(event));
    expect(receipt).toMatchObject({ id: event.id, outcome: "processed", duplicate: false });
    expect(apiCalls.map((call) => call.authorization)).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
    // Stripe is read before the event's transaction begins: no write of depot's waits on Stripe.
    expect(tableLocksWhileFetching).toEqual(["free", "free"]);
    expect(apiCalls[0]?.path).toBe(`/v1/checkout/sessions/${sessionId}/line_items?limit=100`);
    expect(apiCalls[1]?.path).toBe(
      `/v1/checkout/sessions/${sessionId}/line_items?limit=100&starting_after=li_0`,
    );
    const buyer = await userByEmail(email);
    expect(await licensesOf(buyer?.id ?? 0)).toHaveLength(2);
    const bought = await t.ctx.db
      .select()
      .from(purchases)
      .where(eq(purchases.userId, buyer?.id ?? 0));
    expect(bought.map((p) => [p.optionId, p.quantity, p.unitPrice]).sort()).toEqual([
      [null, 1, "49.00"],
      [option.id, 2, "49.00"],
    ]);
  }, 30_000);

  test("Stripe unreachable: 503 so that Stripe resends, nothing written; sold when it does", async () => {
    const email = `down-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { event, sessionId } = bare(email);
    sessionItems.set(sessionId, [{ price: "price_pro", quantity: 1, amount_total: 4900 }]);
    const port = stripeApiPort();
    stripeApi.stop(true);
    try {
      const response = await send(event);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("60");
      const body = await readJson(response);
      expect(Object.keys(body)).toEqual(["message"]);
      expect(body.message).toStartWith("Fetching the checkout session's line items from Stripe failed: ");
      expect(await userByEmail(email)).toBeUndefined();
      // Listed for the vendor as failed, with why: not finished, so the resend is handled.
      const [stored] = await t.ctx.db
        .select()
        .from(stripeEvents)
        .where(eq(stripeEvents.id, event.id as string));
      expect(stored).toMatchObject({ outcome: "failed", message: body.message });
    } finally {
      stripeApi = Bun.serve({ hostname: "127.0.0.1", port, fetch: fakeStripe });
    }
    const retried = await readJson(await send(event));
    expect(retried).toMatchObject({ outcome: "processed", duplicate: false });
    expect(await licensesOf((await userByEmail(email))?.id ?? 0)).toHaveLength(1);
    const again = await readJson(await send(event));
    expect(again).toMatchObject({ outcome: "processed", duplicate: true });
  }, 30_000);

  test("a session Stripe does not know: failed with Stripe's reason", async () => {
    const email = `unknown-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const failed = await readJson(await send(bare(email).event));
    expect(failed.outcome).toBe("failed");
    expect(failed.message).toBe(
      "Fetching the checkout session's line items from Stripe failed: No such checkout.session",
    );
    expect(await userByEmail(email)).toBeUndefined();
  }, 30_000);

  test("without STRIPE_SECRET_KEY: failed, saying which setting is missing", async () => {
    const keyless = await startTestApp({ env: { STRIPE_WEBHOOK_SECRET: SECRET } });
    try {
      const payload = JSON.stringify(bare(`keyless-${crypto.randomUUID().slice(0, 8)}@example.com`).event);
      const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET });
      const response = await keyless.request("/api/integrations/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": header },
        body: payload,
      });
      expect(response.status).toBe(200);
      const receipt = await readJson(response);
      expect(receipt.outcome).toBe("failed");
      expect(receipt.message).toBe(
        "The checkout session carries no line items and STRIPE_SECRET_KEY is not set to fetch them from Stripe.",
      );
    } finally {
      await keyless.close();
    }
  }, 30_000);
});

describe("renewals and revocations", () => {
  test("invoice.paid extends a subscription's license; subscription.deleted revokes it", async () => {
    const email = `sub-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const sold = checkout(
      email,
      { mode: "subscription", subscription: "sub_test_1", payment_intent: null },
      "price_sub",
    );
    expect((await readJson(await send(sold))).outcome).toBe("processed");
    const buyerId = (await userByEmail(email))?.id ?? 0;

    const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const paid = await readJson(
      await send({
        id: eventId(),
        type: "invoice.paid",
        data: {
          object: {
            object: "invoice",
            subscription: "sub_test_1",
            lines: { data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }] },
          },
        },
      }),
    );
    expect(paid.outcome).toBe("processed");
    const [renewed] = await licensesOf(buyerId);
    expect(renewed?.expires?.getTime()).toBe((periodEnd + 3 * 86_400) * 1000);

    const ended = await readJson(
      await send({
        id: eventId(),
        type: "customer.subscription.deleted",
        data: { object: { id: "sub_test_1" } },
      }),
    );
    expect(ended.outcome).toBe("processed");
    const [revoked] = await licensesOf(buyerId);
    expect(revoked?.revokedAt).toBeInstanceOf(Date);
  }, 30_000);

  test("charge.refunded in full revokes; a partial refund does not", async () => {
    const email = `refund-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const sold = checkout(email, { payment_intent: "pi_refund_1" });
    expect((await readJson(await send(sold))).outcome).toBe("processed");
    const buyerId = (await userByEmail(email))?.id ?? 0;
    const refund = (refunded: boolean) =>
      send({
        id: eventId(),
        type: "charge.refunded",
        data: { object: { payment_intent: "pi_refund_1", refunded } },
      });
    expect((await readJson(await refund(false))).outcome).toBe("ignored");
    expect((await licensesOf(buyerId))[0]?.revokedAt).toBeNull();
    expect((await readJson(await refund(true))).outcome).toBe("processed");
    expect((await licensesOf(buyerId))[0]?.revokedAt).toBeInstanceOf(Date);
  }, 30_000);

  test("an event depot does not handle is stored as ignored", async () => {
    const receipt = await readJson(
      await send({ id: eventId(), type: "customer.created", data: { object: {} } }),
    );
    expect(receipt).toMatchObject({ outcome: "ignored", message: "depot does nothing on customer.created." });
  });
});

describe("signatures", () => {
  test("a body changed after signing: 400, nothing stored", async () => {
    const event = checkout(`tampered-${sequence}@example.com`);
    const response = await send(event, SECRET, (payload) => payload.replace("4900", "1"));
    expect(response.status).toBe(400);
    expect(await readJson(response)).toEqual({
      message: "The Stripe-Signature header does not verify for this body.",
    });
    const [stored] = await t.ctx.db
      .select({ n: count() })
      .from(stripeEvents)
      .where(eq(stripeEvents.id, String(event.id)));
    expect(stored?.n).toBe(0);
  });

  test("another secret: 400; no header: 400", async () => {
    expect((await send(checkout("x@example.com"), "whsec_other")).status).toBe(400);
    const unsigned = await fetch(`${base}/api/integrations/stripe/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unsigned.status).toBe(400);
    expect(await readJson(unsigned)).toEqual({ message: "The Stripe-Signature header is missing." });
  });

  test("the bytes are verified as sent: whitespace and key order are kept", async () => {
    const event = checkout(`spaced-${crypto.randomUUID().slice(0, 8)}@example.com`);
    // JSON.stringify(…, 2) above already sends indented JSON; a compact body verifies too.
    const payload = JSON.stringify(event);
    const header = await Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET });
    const response = await fetch(`${base}/api/integrations/stripe/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": header },
      body: payload,
    });
    expect(response.status).toBe(200);
  });
});

describe("settings and the event list", () => {
  test("the settings name the webhook's address and each price's product and option", async () => {
    const response = await fetch(`${base}/api/integrations/stripe`, { headers: bearer(adminToken) });
    expect(response.status).toBe(200);
    const { data } = await readJson(response);
    expect(data.webhook_url).toBe("http://depot.test/api/integrations/stripe/webhook");
    expect(data.webhook_secret_set).toBe(true);
    expect(data.prices[0]).toEqual({
      price_id: "price_later",
      product_id: product.id,
      product_name: product.name,
      option_id: null,
      option_name: null,
      policy_id: null,
      policy_name: null,
    });
  });

  test("bad mappings: 422 per field, nothing changed", async () => {
    const response = await putSettings({
      prices: [
        { price_id: "price_a", product_id: "999999" },
        { price_id: "price_b", product_id: String(product.id), option_id: "999999" },
        { price_id: "price_b", product_id: String(product.id) },
      ],
    });
    expect(response.status).toBe(422);
    const { errors } = await readJson(response);
    expect(Object.keys(errors).sort()).toEqual([
      "prices.0.product_id",
      "prices.1.option_id",
      "prices.2.price_id",
    ]);
    const { data } = await readJson(
      await fetch(`${base}/api/integrations/stripe`, { headers: bearer(adminToken) }),
    );
    expect(data.prices.map((p: { price_id: string }) => p.price_id)).toEqual([
      "price_later",
      "price_pro",
      "price_sub",
    ]);
    expect((await putSettings({ prices: [{ price_id: "not a price", product_id: "1" }] })).status).toBe(422);
  });

  test("a vendor may not read or change them", async () => {
    expect((await fetch(`${base}/api/integrations/stripe`, { headers: bearer(vendorToken) })).status).toBe(
      403,
    );
    expect((await putSettings({ prices: [] }, vendorToken)).status).toBe(403);
  });

  test("every event is listed with its outcome, newest first", async () => {
    const response = await fetch(`${base}/api/integrations/stripe/events?per_page=100`, {
      headers: bearer(adminToken),
    });
    expect(response.status).toBe(200);
    const page = await readJson(response);
    const outcomes = new Set(page.data.map((e: { outcome: string }) => e.outcome));
    expect([...outcomes].sort()).toEqual(["failed", "ignored", "processed"]);
    expect(page.data[0]).toEqual({
      id: expect.stringMatching(/^evt_test_/),
      type: expect.any(String),
      outcome: expect.any(String),
      message: expect.any(String),
      received_at: expect.stringMatching(/Z$/),
      processed_at: expect.stringMatching(/Z$/),
    });
  });
});

describe("a price mapped with a license policy", () => {
  const createPolicy = async (productId: number, body: Record<string, unknown>) => {
    const response = await fetch(`${base}/api/products/${productId}/license-policies`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(201);
    return (await readJson(response)).data as { id: number; name: string };
  };
  const currentPrices = async () =>
    (await readJson(await fetch(`${base}/api/integrations/stripe`, { headers: bearer(adminToken) }))).data
      .prices as {
      price_id: string;
      product_id: number;
      option_id: number | null;
      policy_id: number | null;
    }[];
  const asInput = (price: Awaited<ReturnType<typeof currentPrices>>[number]) => ({
    price_id: price.price_id,
    product_id: String(price.product_id),
    option_id: price.option_id === null ? null : String(price.option_id),
    policy_id: price.policy_id === null ? null : String(price.policy_id),
  });

  test("sells a license made from the policy, which it then follows", async () => {
    const policy = await createPolicy(product.id, {
      name: `Desktop ${crypto.randomUUID().slice(0, 6)}`,
      max_machines: 3,
      duration_seconds: 30 * 86_400,
    });
    const before = await currentPrices();
    const saved = await putSettings({
      prices: [
        ...before.map(asInput),
        { price_id: "price_policy", product_id: String(product.id), policy_id: String(policy.id) },
      ],
    });
    expect(saved.status).toBe(200);
    const mapped = (await readJson(saved)).data.prices.find(
      (price: { price_id: string }) => price.price_id === "price_policy",
    );
    expect(mapped).toEqual({
      price_id: "price_policy",
      product_id: product.id,
      product_name: product.name,
      option_id: null,
      option_name: null,
      policy_id: policy.id,
      policy_name: policy.name,
    });

    const email = `policy-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const sentAt = Date.now();
    const receipt = await readJson(await send(checkout(email, {}, "price_policy")));
    expect(receipt).toMatchObject({ outcome: "processed", duplicate: false });
    const [license] = await licensesOf((await userByEmail(email))?.id ?? 0);
    expect(license?.policyId).toBe(policy.id);
    expect(license?.maxMachines).toBe(3);
    expect(license?.maxIps).toBeNull();
    const expires = license?.expires?.getTime() ?? 0;
    expect(Math.abs(expires - (sentAt + 30 * 86_400_000))).toBeLessThan(60_000);

    // The license follows its policy, as one made through the license API does.
    const changed = await fetch(`${base}/api/products/${product.id}/license-policies/${policy.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json", ...bearer(adminToken) },
      body: JSON.stringify({ max_machines: 5 }),
    });
    expect(changed.status).toBe(200);
    const [followed] = await t.ctx.db
      .select()
      .from(licenses)
      .where(eq(licenses.id, license?.id ?? ""));
    expect(followed?.maxMachines).toBe(5);
  }, 30_000);

  test("a policy of another product, or none that exists: 422 on it, nothing changed", async () => {
    const other = await createProduct(t.ctx, await createUser(t.ctx, { role: "vendor" }));
    const foreign = await createPolicy(other.id, { name: "Elsewhere" });
    const before = await currentPrices();
    const response = await putSettings({
      prices: [
        { price_id: "price_foreign", product_id: String(product.id), policy_id: String(foreign.id) },
        { price_id: "price_missing", product_id: String(product.id), policy_id: "999999" },
      ],
    });
    expect(response.status).toBe(422);
    expect((await readJson(response)).errors).toEqual({
      "prices.0.policy_id": ["The policy is not one of the product's license policies."],
      "prices.1.policy_id": ["The policy is not one of the product's license policies."],
    });
    const notAnId = await putSettings({
      prices: [{ price_id: "price_bad", product_id: String(product.id), policy_id: "x" }],
    });
    expect(notAnId.status).toBe(422);
    expect(Object.keys((await readJson(notAnId)).errors)).toEqual(["prices.0.policy_id"]);
    expect(await currentPrices()).toEqual(before);
  });
});

test("without STRIPE_WEBHOOK_SECRET the webhook is a 404", async () => {
  const off = await startTestApp();
  try {
    const response = await off.request("/api/integrations/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      body: "{}",
    });
    expect(response.status).toBe(404);
  } finally {
    await off.close();
  }
}, 30_000);
