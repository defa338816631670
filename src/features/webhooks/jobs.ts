import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";

/**
 * One delivery of one event to one endpoint. The job id is the delivery's id (its `webhook-id`).
 * About 8 tries over a day: 5 minutes, doubling, with pg-boss's jitter.
 */
export const webhookDelivery = defineQueue({
  name: "webhook.delivery",
  payload: t.Object({ delivery_id: t.String({ format: "uuid" }) }),
  options: { retryLimit: 8, retryDelay: 300, retryBackoff: true },
  concurrency: 8,
});
