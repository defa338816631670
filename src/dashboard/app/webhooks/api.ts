// The signed-in user's webhook endpoints and their deliveries (README, Webhooks: /api/webhooks).
import { api, get, post } from "../api.ts";

export interface Webhook {
  id: number;
  url: string;
  events: string[];
  disabled_at: string | null;
  created_at: string;
}

export interface NewWebhook {
  id: number;
  url: string;
  events: string[];
  /** `whsec_…`: the only time it is ever shown. */
  secret: string;
  created_at: string;
}

export interface Delivery {
  id: string;
  event: string;
  status: "pending" | "succeeded" | "failed";
  attempts: { attempt: number; status_code: number | null; error: string | null; created_at: string }[];
  last_attempt_at: string | null;
  created_at: string;
}

/** A user has at most 20 endpoints, so one page holds them all. */
const ENDPOINTS_PAGE = 100;
/** The newest deliveries of an endpoint; older ones are rarely what someone checks. */
export const DELIVERIES_LISTED = 20;

export async function listWebhooks(): Promise<Webhook[]> {
  return (await get<{ data: Webhook[] }>(`/api/webhooks?per_page=${ENDPOINTS_PAGE}`)).data;
}

export async function createWebhook(url: string, events: string[]): Promise<NewWebhook> {
  return (await post<{ data: NewWebhook }>("/api/webhooks", { url, events })).data;
}

export async function deleteWebhook(id: number): Promise<void> {
  await api("DELETE", `/api/webhooks/${id}`);
}

export async function listDeliveries(webhookId: number) {
  const page = await get<{ data: Delivery[]; links: { next: string | null } }>(
    `/api/webhooks/${webhookId}/deliveries?per_page=${DELIVERIES_LISTED}`,
  );
  return { deliveries: page.data, more: page.links.next !== null };
}

export async function resendDelivery(webhookId: number, deliveryId: string): Promise<Delivery> {
  return (await post<{ data: Delivery }>(`/api/webhooks/${webhookId}/deliveries/${deliveryId}/resend`)).data;
}
