import Stripe from "stripe";
import type { Config } from "../../config.ts";

/** Stripe's answer in time or not at all: Stripe waits for the webhook's answer only so long. */
const STRIPE_API_TIMEOUT_MS = 10_000;

/**
 * Line items as Stripe's API lists them (the shape an expanded `line_items` has), or why there are
 * none: `transient` when Stripe could not be reached or was overloaded (sending the event again later
 * will do), not when the key or the session is wrong (it will not).
 */
export type FetchedLineItems = { items: unknown[] } | { problem: string; transient: boolean };

/**
 * A checkout session's line items, read from Stripe's API (`GET /v1/checkout/sessions/:id/line_items`,
 * every page) with STRIPE_SECRET_KEY, as a `checkout.session.completed` event does not carry them.
 * No key, an unreachable API or a refusal is a problem to report, never a throw.
 */
export async function fetchLineItems(
  config: Pick<Config, "stripeSecretKey" | "stripeApiUrl">,
  sessionId: string,
): Promise<FetchedLineItems> {
  if (!config.stripeSecretKey) {
    return {
      problem:
        "The checkout session carries no line items and STRIPE_SECRET_KEY is not set to fetch them from Stripe.",
      transient: false,
    };
  }
  const api = new URL(config.stripeApiUrl);
  const stripe = new Stripe(config.stripeSecretKey, {
    host: api.hostname,
    port: api.port || (api.protocol === "http:" ? 80 : 443),
    protocol: api.protocol === "http:" ? "http" : "https",
    timeout: STRIPE_API_TIMEOUT_MS,
    maxNetworkRetries: 1,
    telemetry: false,
  });
  try {
    const items: unknown[] = [];
    for await (const item of stripe.checkout.sessions.listLineItems(sessionId, { limit: 100 })) {
      items.push(item);
    }
    return { items };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const transient =
      error instanceof Stripe.errors.StripeConnectionError ||
      error instanceof Stripe.errors.StripeRateLimitError ||
      (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500);
    return { problem: `Fetching the checkout session's line items from Stripe failed: ${why}`, transient };
  }
}
