import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { IdString } from "../../validation/ids.ts";

/** One Stripe price and what it sells. */
const PriceMapping = t.Object(
  {
    price_id: t.String({
      pattern: "^price_[A-Za-z0-9]{1,250}$",
      description: "Stripe's price id, `price_…`",
    }),
    product_id: IdString,
    option_id: t.Optional(t.Union([IdString, t.Null()], { description: "the option the purchase records" })),
    policy_id: t.Optional(
      t.Union([IdString, t.Null()], {
        description: "a license policy of the product: the license sold is made from it",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The whole mapping of Stripe prices to products: what is sent replaces what was set. */
export const StripeSettingsBody = t.Object(
  { prices: t.Array(PriceMapping, { maxItems: 500 }) },
  { additionalProperties: false },
);
export type StripeSettingsInput = typeof StripeSettingsBody.static;

export const StripeEventQuery = t.Object({ ...PageQuery });
