import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { readBodyText } from "../../http/json-body.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { receiveStripeEvent } from "./events.ts";
import {
  StripeEventPageJson,
  StripeReceiptJson,
  StripeSettingsJson,
  toStripeEventJson,
  toStripeReceiptJson,
  toStripeSettingsJson,
} from "./json.ts";
import { StripeEventQuery } from "./schemas.ts";
import {
  listStripeEvents,
  readStripeSettings,
  STRIPE_WEBHOOK_PATH,
  StripeSettingsForm,
  saveStripeSettings,
} from "./service.ts";

/** Stripe's events are small (a checkout session with its line items is a few KiB). */
const MAX_EVENT_BYTES = 512 * 1024;

/** Selling through Stripe Checkout (docs/stripe.md): the webhook Stripe calls, and its settings for admins. */
export const stripeRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Stripe"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    // No body schema: the body parser leaves the bytes alone, and the signature is checked over them
    // exactly as Stripe sent them (a parsed and re-serialised body would not verify).
    .post(
      STRIPE_WEBHOOK_PATH,
      async ({ request }) =>
        toStripeReceiptJson(
          await receiveStripeEvent(
            ctx,
            await readBodyText(request, MAX_EVENT_BYTES),
            request.headers.get("stripe-signature"),
          ),
        ),
      {
        ...answers(
          {
            summary: "Stripe's webhook: a signed event (Stripe-Signature, STRIPE_WEBHOOK_SECRET)",
            description:
              "`checkout.session.completed` sells (customer, purchase, license, e-mail); `invoice.paid` " +
              "extends a subscription's licenses; `charge.refunded` and `customer.subscription.deleted` " +
              "revoke them. Each event id is handled once. 400 when the signature does not verify; 404 " +
              "when STRIPE_WEBHOOK_SECRET is not set; 503 when Stripe's API (for a session's line items) " +
              "cannot be reached, so that Stripe sends the event again.",
            requestBody: {
              required: true,
              content: { "application/json": { schema: { type: "object", description: "a Stripe event" } } },
            },
          },
          { 200: StripeReceiptJson },
          400,
          404,
          413,
          503,
        ),
      },
    )
    .get(
      "/api/integrations/stripe",
      async () => ({ data: toStripeSettingsJson(await readStripeSettings(ctx)) }),
      {
        auth: "*",
        ...answers(
          { summary: "The Stripe webhook's address and price mapping", tags: ["Admin"] },
          {
            200: dataOf(StripeSettingsJson),
          },
        ),
      },
    )
    .put(
      "/api/integrations/stripe",
      async ({ body }) => ({ data: toStripeSettingsJson(await saveStripeSettings(ctx, body)) }),
      {
        auth: "*",
        ...input(StripeSettingsForm),
        ...answers(
          { summary: "Replace the mapping of Stripe prices to products and options", tags: ["Admin"] },
          { 200: dataOf(StripeSettingsJson) },
        ),
      },
    )
    .get(
      "/api/integrations/stripe/events",
      ({ query, request }) =>
        pageOf(query, request, (page) => listStripeEvents(ctx, page), toStripeEventJson),
      {
        auth: "*",
        query: StripeEventQuery,
        ...answers(
          { summary: "The Stripe events received and what came of each, newest first", tags: ["Admin"] },
          { 200: StripeEventPageJson },
          422,
        ),
      },
    );
