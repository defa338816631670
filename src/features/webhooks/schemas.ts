import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";

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

/** `page` and `per_page`, the only query of both lists. */
export const ListQuery = t.Object(PageQuery);
