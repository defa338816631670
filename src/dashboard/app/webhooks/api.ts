// The signed-in user's webhook endpoints and their deliveries (docs/vendors.md, Webhooks: /api/webhooks).
import { api, get, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { Delivery, NewWebhook, Webhook, WebhookRequest } from "../wire.ts";

/** A user has at most 20 endpoints, so one page holds them all. */
const ENDPOINTS_PAGE = 100;
/** An endpoint's deliveries a page at a time: the newest are what someone checks. */
const DELIVERIES_PAGE = 20;

export async function listWebhooks(): Promise<Webhook[]> {
  return (await get<{ data: Webhook[] }>(`/api/webhooks?per_page=${ENDPOINTS_PAGE}`)).data;
}

export async function createWebhook(webhook: WebhookRequest): Promise<NewWebhook> {
  return (await post<{ data: NewWebhook }>("/api/webhooks", webhook)).data;
}

export async function deleteWebhook(id: number): Promise<void> {
  await api("DELETE", `/api/webhooks/${id}`);
}

export const listDeliveries = (webhookId: number): Promise<Listing<Delivery>> =>
  listing(`/api/webhooks/${webhookId}/deliveries`, DELIVERIES_PAGE);

export async function resendDelivery(webhookId: number, deliveryId: string): Promise<Delivery> {
  return (await post<{ data: Delivery }>(`/api/webhooks/${webhookId}/deliveries/${deliveryId}/resend`)).data;
}
