import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import Stripe from "stripe";
import type { AppContext } from "../../context.ts";
import {
  currencies,
  licenses,
  orders,
  products,
  purchases,
  type StripeEvent,
  stripeEvents,
  stripeLicenses,
  stripePrices,
} from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError, NotFound } from "../../errors.ts";
import { findOrCreateCustomer } from "../customers/service.ts";
import { insertLicense, queueLicenseKeyEmail } from "../licenses/service.ts";
import { fetchLineItems } from "./line-items.ts";

type StripeContext = Pick<AppContext, "db" | "config" | "jobs" | "appKey" | "log">;

/** What became of an event: its stored row, and whether this delivery was one already handled. */
export interface ReceivedEvent {
  event: StripeEvent;
  duplicate: boolean;
}

/** A subscription renewed late still works for this long after its paid period ends. */
export const RENEWAL_GRACE_SECONDS = 3 * 86_400;

/**
 * The one door for Stripe: the raw body is checked against the `Stripe-Signature` header with the
 * endpoint's secret by Stripe's own library (the async check: on Bun it uses Web Crypto), then
 * handled once per event id.
 */
export async function receiveStripeEvent(
  ctx: StripeContext,
  rawBody: string,
  signature: string | null,
): Promise<ReceivedEvent> {
  const secret = ctx.config.stripeWebhookSecret;
  if (!secret) throw new NotFound("Stripe integration (set STRIPE_WEBHOOK_SECRET)");
  if (!signature) throw new AppError(400, "The Stripe-Signature header is missing.");
  let event: Stripe.Event;
  try {
    event = await Stripe.webhooks.constructEventAsync(rawBody, signature, secret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw new AppError(400, "The Stripe-Signature header does not verify for this body.");
    }
    throw error;
  }
  return handleStripeEvent(ctx, event as unknown as IncomingEvent);
}

/** The part of an event depot reads; everything else Stripe sends is stored nowhere. */
export interface IncomingEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

interface Outcome {
  outcome: StripeEvent["outcome"];
  message: string;
}

/**
 * Stripe's API could not be reached (or was overloaded) while an event was handled: 503, so that
 * Stripe sends the event again; the event is stored as `failed` with the reason, which a redelivery
 * handles again.
 */
export class StripeUnreachable extends AppError {
  constructor(problem: string) {
    super(503, problem, { "retry-after": "60" });
  }
}

/**
 * Handles one verified event: what it needs from Stripe's API is read first, outside any transaction
 * (no row is locked while Stripe answers), then everything is written in one transaction with the
 * event's record. A redelivery of an event already processed or ignored changes nothing (two at
 * once: the second waits on the first's row); a failed one is handled again. Stripe out of reach is
 * a 503 and an unexpected error a 500 (everything rolled back), so Stripe retries.
 */
export async function handleStripeEvent(ctx: StripeContext, event: IncomingEvent): Promise<ReceivedEvent> {
  const [known] = await ctx.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id));
  if (known && known.outcome !== "failed") return { event: known, duplicate: true };
  const checkout = isCheckout(event) ? await prepareCheckout(ctx, event.data.object) : null;
  if (checkout && "transient" in checkout) {
    await recordUnfinished(ctx, event, checkout.problem);
    throw new StripeUnreachable(checkout.problem);
  }
  return withTransaction(ctx, async (tx) => {
    const [claimed] = await tx.db
      .insert(stripeEvents)
      .values({ id: event.id, type: event.type, outcome: "failed", message: "being handled" })
      .onConflictDoUpdate({
        target: stripeEvents.id,
        set: { updatedAt: sql`now()` },
        setWhere: eq(stripeEvents.outcome, "failed"),
      })
      .returning();
    if (!claimed) {
      const [stored] = await tx.db.select().from(stripeEvents).where(eq(stripeEvents.id, event.id));
      if (!stored) throw new Error(`stripe event ${event.id} vanished`);
      return { event: stored, duplicate: true };
    }
    const result = checkout
      ? await checkoutCompleted(tx, event.id, event.data.object, checkout)
      : await apply(tx, event);
    const [stored] = await tx.db
      .update(stripeEvents)
      .set({ ...result, processedAt: sql`now()` })
      .where(eq(stripeEvents.id, event.id))
      .returning();
    if (!stored) throw new Error(`stripe event ${event.id} vanished`);
    return { event: stored, duplicate: false };
  });
}

/** An event Stripe will send again is listed as failed, with why, unless another delivery finished it. */
async function recordUnfinished(ctx: StripeContext, event: IncomingEvent, problem: string) {
  await ctx.db
    .insert(stripeEvents)
    .values({ id: event.id, type: event.type, outcome: "failed", message: problem })
    .onConflictDoUpdate({
      target: stripeEvents.id,
      set: { message: problem, processedAt: sql`now()`, updatedAt: sql`now()` },
      setWhere: eq(stripeEvents.outcome, "failed"),
    });
}

const isCheckout = (event: IncomingEvent) =>
  event.type === "checkout.session.completed" || event.type === "checkout.session.async_payment_succeeded";

function apply(ctx: StripeContext, event: IncomingEvent): Promise<Outcome> {
  const object = event.data.object;
  switch (event.type) {
    case "invoice.paid":
      return invoicePaid(ctx, object);
    case "charge.refunded":
      return chargeRefunded(ctx, object);
    case "customer.subscription.deleted":
      return revokeWhere(ctx, eq(stripeLicenses.subscriptionId, text(object.id) ?? ""), "subscription ended");
    default:
      return Promise.resolve({ outcome: "ignored", message: `depot does nothing on ${event.type}.` });
  }
}

const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
/** An id Stripe sends as a string, or as the expanded object that has it. */
const idOf = (value: unknown): string | null => text(value) ?? text(record(value).id);

interface LineItem {
  priceId: string;
  quantity: number;
  /** In the currency's smallest unit, for the whole line. */
  amountTotal: number;
  currency: string;
}

/** The session's line items, as an expanded `line_items` list (or Stripe's API) carries them. */
function lineItemsOf(
  session: Record<string, unknown>,
  data: unknown = record(session.line_items).data,
): LineItem[] {
  if (!Array.isArray(data)) return [];
  return data.flatMap((raw) => {
    const item = record(raw);
    const priceId = idOf(item.price);
    if (!priceId) return [];
    const quantity = typeof item.quantity === "number" && item.quantity > 0 ? item.quantity : 1;
    const amountTotal = typeof item.amount_total === "number" ? item.amount_total : 0;
    const currency = text(item.currency) ?? text(session.currency) ?? "usd";
    return [{ priceId, quantity, amountTotal, currency }];
  });
}

/** What a checkout sells, read before the transaction: an outcome already (unpaid, no e-mail, no items), or the buyer and the items. */
type PreparedCheckout = Outcome | { problem: string; transient: true } | { email: string; items: LineItem[] };

/**
 * A checkout's buyer and line items, with no write: the items from the event, else from Stripe's API
 * (the only network call an event makes, so it happens here, outside the event's transaction).
 */
async function prepareCheckout(
  ctx: StripeContext,
  session: Record<string, unknown>,
): Promise<PreparedCheckout> {
  if (session.payment_status === "unpaid") {
    return {
      outcome: "ignored",
      message: "The payment has not arrived yet (async_payment_succeeded will follow).",
    };
  }
  const details = record(session.customer_details);
  const email = text(details.email) ?? text(session.customer_email);
  if (!email) return { outcome: "failed", message: "The checkout session has no customer e-mail." };
  const items = lineItemsOf(session);
  if (items.length > 0) return { email, items };
  // Stripe's own events never carry them: they are read from Stripe's API with STRIPE_SECRET_KEY.
  const sessionId = text(session.id);
  if (!sessionId) return { outcome: "failed", message: "The checkout session has no id." };
  const fetched = await fetchLineItems(ctx.config, sessionId);
  if ("problem" in fetched) {
    return fetched.transient
      ? { problem: fetched.problem, transient: true }
      : { outcome: "failed", message: fetched.problem };
  }
  const listed = lineItemsOf(session, fetched.items);
  if (listed.length === 0) {
    return {
      outcome: "failed",
      message: `Stripe lists no priced line items for checkout session ${sessionId}.`,
    };
  }
  return { email, items: listed };
}

/**
 * A paid checkout: per line item, the buyer (the session's customer e-mail, made a customer if
 * unknown), a purchase of the mapped product and option, and a license, whose key is e-mailed. A
 * price without a product, a currency depot does not record or no e-mail is a failed event and
 * writes nothing.
 */
async function checkoutCompleted(
  ctx: StripeContext,
  eventId: string,
  session: Record<string, unknown>,
  prepared: Exclude<PreparedCheckout, { transient: true }>,
): Promise<Outcome> {
  if ("outcome" in prepared) return prepared;
  const { email, items } = prepared;
  const details = record(session.customer_details);
  const mapped = await ctx.db
    .select({ price: stripePrices, product: products })
    .from(stripePrices)
    .innerJoin(products, eq(products.id, stripePrices.productId))
    .where(
      and(
        inArray(
          stripePrices.priceId,
          items.map((item) => item.priceId),
        ),
        isNull(products.deletedAt),
      ),
    );
  const byPrice = new Map(mapped.map((row) => [row.price.priceId, row]));
  const unmapped = items.filter((item) => !byPrice.has(item.priceId)).map((item) => item.priceId);
  if (unmapped.length > 0) {
    return { outcome: "failed", message: `No product is set for Stripe price ${unmapped.join(", ")}.` };
  }
  const codes = [...new Set(items.map((item) => item.currency.toUpperCase()))];
  const known = await ctx.db.select().from(currencies).where(inArray(currencies.code, codes));
  const currencyOf = new Map(known.map((currency) => [currency.code, currency]));
  const unknown = codes.filter((code) => !currencyOf.has(code));
  if (unknown.length > 0) {
    return { outcome: "failed", message: `depot records no prices in ${unknown.join(", ")}.` };
  }

  const customer = await findOrCreateCustomer(ctx, email, text(details.name));
  const sessionId = text(session.id) ?? eventId;
  const keys: string[] = [];
  for (const item of items) {
    const { price, product } = byPrice.get(item.priceId) as (typeof mapped)[number];
    const currency = currencyOf.get(item.currency.toUpperCase()) as (typeof known)[number];
    const total = item.amountTotal / 10 ** currency.decimals;
    const unitPrice = (total / item.quantity).toFixed(2);
    const [order] = await ctx.db
      .insert(orders)
      .values({ userId: customer.user.id, currencyId: currency.id, total: total.toFixed(2) })
      .returning({ id: orders.id });
    if (!order) throw new Error("order insert returned nothing");
    const [purchase] = await ctx.db
      .insert(purchases)
      .values({
        orderId: order.id,
        userId: customer.user.id,
        productId: product.id,
        optionId: price.optionId,
        quantity: item.quantity,
        unitPrice,
        unitPriceCurrencyId: currency.id,
        originalUnitPrice: unitPrice,
        originalCurrencyId: currency.id,
      })
      .returning({ id: purchases.id });
    if (!purchase) throw new Error("purchase insert returned nothing");
    // The license is made by the product's seller, as one made from the product's page is, from the
    // price's policy when it names one (its numbers, its duration, and it follows the policy after).
    const license = await insertLicense(ctx, {
      userId: customer.user.id,
      creatorId: product.vendorId ?? product.userId,
      productId: product.id,
      policyId: price.policyId,
    });
    await ctx.db.insert(stripeLicenses).values({
      licenseId: license.id,
      eventId,
      checkoutSessionId: sessionId,
      subscriptionId: idOf(session.subscription),
      paymentIntentId: idOf(session.payment_intent),
      purchaseId: purchase.id,
    });
    await queueLicenseKeyEmail(ctx, license, customer.user);
    keys.push(`${product.name} (license ${license.id})`);
  }
  const who = customer.created ? `new customer ${email}` : email;
  return { outcome: "processed", message: `Sold ${keys.join(", ")} to ${who}.` };
}

/** The subscription an invoice pays for: `subscription` (older API versions) or `parent.subscription_details`. */
const subscriptionOf = (invoice: Record<string, unknown>) =>
  idOf(invoice.subscription) ?? idOf(record(record(invoice.parent).subscription_details).subscription);

/** The end of the period an invoice pays for (unix seconds): its lines' latest `period.end`. */
function periodEndOf(invoice: Record<string, unknown>): number | null {
  const lines = record(invoice.lines).data;
  const ends = (Array.isArray(lines) ? lines : [])
    .map((line) => record(record(line).period).end)
    .filter((end): end is number => typeof end === "number");
  const end = ends.length > 0 ? Math.max(...ends) : invoice.period_end;
  return typeof end === "number" ? end : null;
}

/** A renewal: the subscription's licenses last until the paid period ends (plus a grace), never less. */
async function invoicePaid(ctx: StripeContext, invoice: Record<string, unknown>): Promise<Outcome> {
  const subscription = subscriptionOf(invoice);
  if (!subscription) return { outcome: "ignored", message: "The invoice is not for a subscription." };
  const end = periodEndOf(invoice);
  if (end === null) return { outcome: "failed", message: "The invoice names no period end." };
  const until = new Date((end + RENEWAL_GRACE_SECONDS) * 1000);
  const extended = await ctx.db
    .update(licenses)
    .set({ expires: sql`greatest(${licenses.expires}, ${until.toISOString()}::timestamptz)` })
    .where(
      and(
        isNull(licenses.revokedAt),
        inArray(
          licenses.id,
          ctx.db
            .select({ id: stripeLicenses.licenseId })
            .from(stripeLicenses)
            .where(eq(stripeLicenses.subscriptionId, subscription)),
        ),
      ),
    )
    .returning({ id: licenses.id });
  if (extended.length === 0) {
    return { outcome: "ignored", message: `No live license was sold with subscription ${subscription}.` };
  }
  return {
    outcome: "processed",
    message: `Extended ${extended.length} license(s) to ${until.toISOString()}.`,
  };
}

/** A refund of the whole charge revokes what its payment bought; a partial one changes nothing. */
async function chargeRefunded(ctx: StripeContext, charge: Record<string, unknown>): Promise<Outcome> {
  if (charge.refunded !== true) {
    return { outcome: "ignored", message: "A partial refund: the licenses stay." };
  }
  const paymentIntent = idOf(charge.payment_intent);
  if (!paymentIntent) return { outcome: "ignored", message: "The charge names no payment intent." };
  return revokeWhere(ctx, eq(stripeLicenses.paymentIntentId, paymentIntent), "charge refunded");
}

async function revokeWhere(ctx: StripeContext, link: ReturnType<typeof eq>, why: string): Promise<Outcome> {
  const revoked = await ctx.db
    .update(licenses)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        isNull(licenses.revokedAt),
        inArray(
          licenses.id,
          ctx.db.select({ id: stripeLicenses.licenseId }).from(stripeLicenses).where(link),
        ),
      ),
    )
    .returning({ id: licenses.id });
  if (revoked.length === 0) return { outcome: "ignored", message: `No live license to revoke (${why}).` };
  return { outcome: "processed", message: `Revoked ${revoked.length} license(s): ${why}.` };
}
