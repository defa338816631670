import { and, asc, desc, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  licensePolicies,
  productOptions,
  products,
  stripeEvents,
  stripePrices,
} from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors } from "../../errors.ts";
import type { PageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { invalidIdMessage, toId } from "../../validation/ids.ts";
import { StripeSettingsBody, type StripeSettingsInput } from "./schemas.ts";

/** Where Stripe sends events, under APP_URL. */
export const STRIPE_WEBHOOK_PATH = "/api/integrations/stripe/webhook";

export interface StripeSettings {
  webhookUrl: string;
  secretSet: boolean;
  prices: {
    priceId: string;
    productId: number;
    productName: string;
    optionId: number | null;
    optionName: string | null;
    policyId: number | null;
    policyName: string | null;
  }[];
}

/** The endpoint to give Stripe, whether its secret is set, and the price mapping by price id. */
export async function readStripeSettings(ctx: Pick<AppContext, "db" | "config">): Promise<StripeSettings> {
  const rows = await ctx.db
    .select({
      priceId: stripePrices.priceId,
      productId: stripePrices.productId,
      productName: products.name,
      optionId: stripePrices.optionId,
      optionName: productOptions.name,
      policyId: stripePrices.policyId,
      policyName: licensePolicies.name,
    })
    .from(stripePrices)
    .innerJoin(products, eq(products.id, stripePrices.productId))
    .leftJoin(productOptions, eq(productOptions.id, stripePrices.optionId))
    .leftJoin(licensePolicies, eq(licensePolicies.id, stripePrices.policyId))
    .orderBy(asc(stripePrices.priceId));
  return {
    webhookUrl: `${ctx.config.appUrl}${STRIPE_WEBHOOK_PATH}`,
    secretSet: ctx.config.stripeWebhookSecret !== null,
    prices: rows,
  };
}

/**
 * Each price once, each naming a live product and (if any) one of its options and one of its license
 * policies; every problem in one 422.
 */
async function checkPrices(ctx: Pick<AppContext, "db">, input: Partial<StripeSettingsInput>) {
  const errors = new FieldErrors();
  const seen = new Set<string>();
  const rows: { priceId: string; productId: number; optionId: number | null; policyId: number | null }[] = [];
  for (const [i, price] of (input.prices ?? []).entries()) {
    if (seen.has(price.price_id)) errors.add(`prices.${i}.price_id`, "The price id is set twice.");
    seen.add(price.price_id);
    const productId = toId(price.product_id);
    const [product] =
      productId === null
        ? []
        : await ctx.db
            .select({ id: products.id })
            .from(products)
            .where(and(eq(products.id, productId), isNull(products.deletedAt)));
    if (!product) {
      errors.add(`prices.${i}.product_id`, invalidIdMessage("product_id"));
      continue;
    }
    const optionId = price.option_id === undefined || price.option_id === null ? null : toId(price.option_id);
    if (price.option_id !== undefined && price.option_id !== null) {
      const [option] =
        optionId === null
          ? []
          : await ctx.db
              .select({ id: productOptions.id })
              .from(productOptions)
              .where(and(eq(productOptions.id, optionId), eq(productOptions.productId, product.id)));
      if (!option) errors.add(`prices.${i}.option_id`, invalidIdMessage("option_id"));
    }
    const policyId = price.policy_id === undefined || price.policy_id === null ? null : toId(price.policy_id);
    if (price.policy_id !== undefined && price.policy_id !== null) {
      const [policy] =
        policyId === null
          ? []
          : await ctx.db
              .select({ id: licensePolicies.id })
              .from(licensePolicies)
              .where(and(eq(licensePolicies.id, policyId), eq(licensePolicies.productId, product.id)));
      if (!policy)
        errors.add(`prices.${i}.policy_id`, "The policy is not one of the product's license policies.");
    }
    rows.push({ priceId: price.price_id, productId: product.id, optionId, policyId });
  }
  errors.throwIfAny();
  return rows;
}

/** The price mapping, checked: each price once, a live product, an option and a policy of that product. */
export const StripeSettingsForm = form(StripeSettingsBody, (ctx, fields) => checkPrices(ctx, fields));

/** Replaces the whole price mapping with `input`'s, in one transaction. */
export async function saveStripeSettings(
  ctx: Pick<AppContext, "db" | "config">,
  input: StripeSettingsInput,
): Promise<StripeSettings> {
  const rows = await checkPrices(ctx, input);
  await withTransaction(ctx, async (tx) => {
    await tx.db.delete(stripePrices);
    if (rows.length > 0) await tx.db.insert(stripePrices).values(rows);
  });
  return readStripeSettings(ctx);
}

/** The events received, newest first. */
export function listStripeEvents(ctx: Pick<AppContext, "db">, page: PageRequest) {
  return ctx.db
    .select()
    .from(stripeEvents)
    .orderBy(desc(stripeEvents.createdAt), desc(stripeEvents.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}
