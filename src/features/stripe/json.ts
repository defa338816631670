import { t } from "elysia";
import type { StripeEvent } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";
import type { StripeSettings } from "./service.ts";

export const StripePriceJson = t.Object({
  price_id: t.String(),
  product_id: Int(),
  product_name: t.String(),
  option_id: t.Union([Int(), t.Null()]),
  option_name: t.Union([t.String(), t.Null()]),
  policy_id: t.Union([Int(), t.Null()], { description: "the license policy the license sold is made from" }),
  policy_name: t.Union([t.String(), t.Null()]),
});

export const StripeSettingsJson = t.Object({
  webhook_url: t.String({ description: "where Stripe sends events (add it as an endpoint in Stripe)" }),
  webhook_secret_set: t.Boolean({ description: "STRIPE_WEBHOOK_SECRET is set: events are accepted" }),
  prices: t.Array(StripePriceJson),
});

export const toStripeSettingsJson = (settings: StripeSettings): typeof StripeSettingsJson.static => ({
  webhook_url: settings.webhookUrl,
  webhook_secret_set: settings.secretSet,
  prices: settings.prices.map((price) => ({
    price_id: price.priceId,
    product_id: price.productId,
    product_name: price.productName,
    option_id: price.optionId,
    option_name: price.optionName,
    policy_id: price.policyId,
    policy_name: price.policyName,
  })),
});

export const StripeEventJson = t.Object({
  id: t.String({ description: "Stripe's event id" }),
  type: t.String(),
  outcome: t.Union([t.Literal("processed"), t.Literal("ignored"), t.Literal("failed")]),
  message: t.String(),
  received_at: t.String({ format: "date-time" }),
  processed_at: t.String({ format: "date-time" }),
});

export const toStripeEventJson = (event: StripeEvent): typeof StripeEventJson.static => ({
  id: event.id,
  type: event.type,
  outcome: event.outcome,
  message: event.message,
  received_at: event.createdAt.toISOString(),
  processed_at: event.processedAt.toISOString(),
});

export const StripeEventPageJson = simplePageOf(StripeEventJson);

/** What the webhook answers Stripe: the event's outcome (also for a redelivery, with `duplicate`). */
export const StripeReceiptJson = t.Object({
  id: t.String(),
  outcome: t.Union([t.Literal("processed"), t.Literal("ignored"), t.Literal("failed")]),
  message: t.String(),
  duplicate: t.Boolean(),
});

export const toStripeReceiptJson = ({ event, duplicate }: { event: StripeEvent; duplicate: boolean }) => ({
  id: event.id,
  outcome: event.outcome,
  message: event.message,
  duplicate,
});
