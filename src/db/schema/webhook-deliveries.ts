import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { webhooks } from "./webhooks.ts";

/**
 * One event for one endpoint. Its uuid is the Standard Webhooks `webhook-id`, the same on every retry,
 * and the pg-boss job id of its delivery, so a re-run fan-out creates neither a second row nor a second job.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey(),
    webhookId: ref("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    /** What the event is about (a version id), unique per endpoint and event. */
    subjectId: bigint("subject_id", { mode: "number" }).notNull(),
    payload: jsonb("payload").notNull(),
    status: text("status", { enum: ["pending", "succeeded", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastAttemptAt: timestamptz("last_attempt_at"),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("webhook_deliveries_webhook_event_subject_unique").on(
      table.webhookId,
      table.event,
      table.subjectId,
    ),
    index("webhook_deliveries_webhook_created_index").on(table.webhookId, table.createdAt),
  ],
);

/** Every attempt, as the endpoint's owner sees it in `GET /api/webhooks/{id}/deliveries`. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: id(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: smallint("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    createdAt: timestamptz("created_at").notNull().default(sql`now()`),
  },
  (table) => [index("webhook_attempts_delivery_index").on(table.deliveryId)],
);

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
export type WebhookAttempt = typeof webhookAttempts.$inferSelect;
