import { t } from "elysia";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";

import { WEBHOOK_EVENTS } from "./events.ts";

export { WEBHOOK_EVENTS, type WebhookEvent } from "./events.ts";

export const MAX_URL_LENGTH = 2048;

/**
 * A delivery id: uuid-shaped, but not necessarily an RFC 4122 uuid. The fan-out derives it from
 * md5(endpoint, event, subject), which has no version bits, and `format: "uuid"` is strict in this
 * process (@elysiajs/openapi registers a version-checking uuid format globally), so a pattern is used.
 */
export const DeliveryId = (description?: string) =>
  t.String({ pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", description });

export const CreateWebhookBody = t.Object(
  {
    url: t.String({
      minLength: 1,
      maxLength: MAX_URL_LENGTH,
      description:
        "http(s) URL that receives POSTs; no user name or password, no control characters or whitespace; must not resolve to a loopback or private address",
      examples: ["https://ci.example.com/hooks/depot"],
    }),
    events: t.Optional(
      t.Array(t.String({ maxLength: 100 }), {
        minItems: 1,
        maxItems: 20,
        description: `events to receive (default ["version.published"]); known: ${WEBHOOK_EVENTS.join(", ")}`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWebhookInput = typeof CreateWebhookBody.static;

const DateTime = t.String({ format: "date-time" });
const NullableDateTime = t.Union([DateTime, t.Null()]);

export const WebhookJson = t.Object({
  id: Int(),
  url: t.String(),
  events: t.Array(t.String()),
  disabled_at: t.Union([DateTime, t.Null()], { description: "set when the endpoint answered 410 Gone" }),
  created_at: DateTime,
});

export const NewWebhookJson = t.Object({
  id: Int(),
  url: t.String(),
  events: t.Array(t.String()),
  secret: t.String({ description: "whsec_…: the Standard Webhooks signing secret, shown once" }),
  created_at: DateTime,
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
export const WebhookDeliveryPageJson = simplePageOf(WebhookDeliveryJson);

/** `page` and `per_page`, the only query of both lists. */
export const ListQuery = t.Object(PageQuery);
