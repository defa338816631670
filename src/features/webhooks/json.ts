import type { AppContext } from "../../context.ts";
import type { Webhook, WebhookAttempt, WebhookDelivery } from "../../db/schema/index.ts";
import { simplePage } from "../../http/pagination.ts";
import type { PageRequest } from "../../pagination.ts";
import { payloadFor } from "../notifications/links.ts";
import type { NewWebhook } from "./service.ts";
import { canonicalUrl } from "./url.ts";

export const toWebhookJson = (row: Webhook) => ({
  id: row.id,
  url: canonicalUrl(row.url),
  events: row.events,
  disabled_at: row.disabledAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

/** The answer to a registration: the only time the signing secret is shown. */
export const toNewWebhookJson = (row: NewWebhook) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  secret: row.secret,
  created_at: row.createdAt.toISOString(),
});

/** A delivery as its endpoint's owner (`userId`) sees it: the payload exactly as it is sent to them. */
export const toDeliveryJson = (
  ctx: Pick<AppContext, "appKey" | "config">,
  userId: number,
  { delivery, attempts }: { delivery: WebhookDelivery; attempts: WebhookAttempt[] },
) => ({
  id: delivery.id,
  event: delivery.event,
  status: delivery.status,
  payload: payloadFor(ctx, delivery.payload, userId, delivery.createdAt),
  attempts: attempts.map((attempt) => ({
    attempt: attempt.attempt,
    status_code: attempt.statusCode,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    created_at: attempt.createdAt.toISOString(),
  })),
  last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
  created_at: delivery.createdAt.toISOString(),
});

/** A page of an endpoint's deliveries (`simplePage`), as its owner (`userId`) sees them. */
export const toDeliveryPageJson = (
  ctx: Pick<AppContext, "appKey" | "config">,
  userId: number,
  { rows, page }: { rows: Parameters<typeof toDeliveryJson>[2][]; page: PageRequest },
  request: Request,
) =>
  simplePage(
    rows.map((row) => toDeliveryJson(ctx, userId, row)),
    page,
    request,
  );
