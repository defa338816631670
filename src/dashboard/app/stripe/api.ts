// Selling through Stripe, for admins: the webhook's address, the price → product/option/policy mapping
// (replaced whole by a PUT) and the events received with what came of each.
import { api, get } from "../api.ts";

export interface StripePrice {
  price_id: string;
  product_id: number;
  product_name: string;
  option_id: number | null;
  option_name: string | null;
  policy_id: number | null;
  policy_name: string | null;
}

export interface StripeSettings {
  webhook_url: string;
  webhook_secret_set: boolean;
  prices: StripePrice[];
}

export interface StripeEvent {
  id: string;
  type: string;
  outcome: "processed" | "ignored" | "failed";
  message: string;
  received_at: string;
  processed_at: string | null;
}

/** A mapping row as the PUT takes it: ids as strings, an option or none, a license policy or none. */
export interface PriceInput {
  price_id: string;
  product_id: string;
  option_id: string | null;
  policy_id: string | null;
}

export const toPriceInput = (price: StripePrice): PriceInput => ({
  price_id: price.price_id,
  product_id: String(price.product_id),
  option_id: price.option_id === null ? null : String(price.option_id),
  policy_id: price.policy_id === null ? null : String(price.policy_id),
});

export async function readStripeSettings(): Promise<StripeSettings> {
  return (await get<{ data: StripeSettings }>("/api/integrations/stripe")).data;
}

export async function saveStripePrices(prices: PriceInput[]): Promise<StripeSettings> {
  return (await api<{ data: StripeSettings }>("PUT", "/api/integrations/stripe", { prices })).data;
}

/** The newest events (the API's first page of up to 50). */
export async function listStripeEvents(): Promise<StripeEvent[]> {
  return (await get<{ data: StripeEvent[] }>("/api/integrations/stripe/events?per_page=50")).data;
}
