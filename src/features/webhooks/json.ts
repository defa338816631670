import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Webhook, WebhookAttempt, WebhookDelivery } from "../../db/schema/index.ts";
import { simplePage, simplePageOf } from "../../http/pagination.ts";
import type { PageRequest } from "../../page-request.ts";
import { Int } from "../../validation/schemas.ts";
import { payloadFor } from "../notifications/links.ts";
import { DeliveryId } from "./schemas.ts";
import type { NewWebhook } from "./service.ts";
import { canonicalUrl } from "./url.ts";

const DateTime = t.String({ format: "date-time" });
const NullableDateTime = t.Union([DateTime, t.Null()]);

export const WebhookJson = t.Object({
  id: Int(),
  url: t.String(),
  events: t.Array(t.String()),
  disabled_at: t.Union([DateTime, t.Null()], { description: "set when the endpoint answered 410 Gone" }),
  created_at: DateTime,
});

export const toWebhookJson = (row: Webhook) => ({
  id: row.id,
  url: canonicalUrl(row.url),
  events: row.events,
  disabled_at: row.disabledAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

export const NewWebhookJson = t.Object({
  id: Int(),
  url: t.String(),
  events: t.Array(t.String()),
  secret: t.String({ description: "whsec_…: the Standard Webhooks signing secret, shown once" }),
  created_at: DateTime,
});

/** The answer to a registration: the only time the signing secret is shown. */
export const toNewWebhookJson = (row: NewWebhook) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  secret: row.secret,
  created_at: row.createdAt.toISOString(),
});

export const WebhookAttemptJson = t.Object({
  attempt: Int(),
  status_code: t.Union([Int(), t.Null()], {
    description: "null: no HTTP answer (refused, timeout, network)",
  }),
  duration_ms: Int(),
  error: t.Union([t.String(), t.Null()]),
  created_at: DateTime,
});

export const WebhookDeliveryJson = t.Object({
  id: DeliveryId("the webhook-id header, the same on every attempt"),
  event: t.String(),
  status: t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed")]),
  payload: t.Unknown({ description: "the body sent: {type, timestamp, data}" }),
  attempts: t.Array(WebhookAttemptJson),
  last_attempt_at: NullableDateTime,
  created_at: DateTime,
});

export const WebhookPageJson = simplePageOf(WebhookJson);

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

export const WebhookDeliveryPageJson = simplePageOf(WebhookDeliveryJson);

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
