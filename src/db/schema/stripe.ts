import { foreignKey, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { licensePolicies } from "./license-policies.ts";
import { licenses } from "./licenses.ts";
import { productOptions } from "./product-options.ts";
import { products } from "./products.ts";
import { purchases } from "./purchases.ts";

/**
 * What a Stripe price sells: a product and, optionally, one of its options (the purchase records it,
 * so a benefit tied to the option is held) and one of its license policies (the license sold is made
 * from it). Set by an admin in the dashboard.
 */
export const stripePrices = pgTable(
  "stripe_prices",
  {
    id: id(),
    /** Stripe's price id, `price_…`. */
    priceId: text("price_id").notNull().unique(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    optionId: ref("option_id"),
    /** A policy of the product (checked when the mapping is saved); a deleted policy leaves none. */
    policyId: ref("policy_id").references(() => licensePolicies.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (table) => [
    foreignKey({
      name: "stripe_prices_option_of_product_fk",
      columns: [table.optionId, table.productId],
      foreignColumns: [productOptions.id, productOptions.productId],
    }).onDelete("cascade"),
  ],
);

export type StripePrice = typeof stripePrices.$inferSelect;

/**
 * Every Stripe event depot received with a valid signature, by Stripe's event id, and what came of it.
 * The id makes a redelivery a no-op; a `failed` one (a price without a product, say) is tried again
 * when Stripe or the vendor sends it again.
 */
export const stripeEvents = pgTable(
  "stripe_events",
  {
    /** Stripe's event id, `evt_…`. */
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    outcome: text("outcome", { enum: ["processed", "ignored", "failed"] }).notNull(),
    /** What was done, or why nothing was: one sentence for the vendor. */
    message: text("message").notNull(),
    processedAt: timestamptz("processed_at").notNull().defaultNow(),
    ...timestamps,
  },
  (table) => [index("stripe_events_created_at_index").on(table.createdAt)],
);

export type StripeEvent = typeof stripeEvents.$inferSelect;

/** A license sold through Stripe, and the Stripe objects later events name it by (renewal, refund, end). */
export const stripeLicenses = pgTable(
  "stripe_licenses",
  {
    licenseId: uuid("license_id")
      .primaryKey()
      .references(() => licenses.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    checkoutSessionId: text("checkout_session_id").notNull(),
    subscriptionId: text("subscription_id"),
    paymentIntentId: text("payment_intent_id"),
    purchaseId: ref("purchase_id").references(() => purchases.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (table) => [
    index("stripe_licenses_subscription_index").on(table.subscriptionId),
    index("stripe_licenses_payment_intent_index").on(table.paymentIntentId),
  ],
);
