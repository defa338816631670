import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { deliverWebhook } from "./deliver.ts";
import { DeliveryId } from "./schemas.ts";

const RETRY_LIMIT = 8;

/**
 * One delivery of one event to one endpoint. The job id is the delivery's id (its `webhook-id`).
 * About 8 tries over a day: 5 minutes, doubling, with pg-boss's jitter.
 */
export const webhookDelivery = defineQueue({
  name: "webhook.delivery",
  // Not `format: "uuid"`: the fan-out's md5-derived ids would fail its version check (see DeliveryId).
  payload: t.Object({ delivery_id: DeliveryId() }),
  options: { retryLimit: RETRY_LIMIT, retryDelay: 300, retryBackoff: true, heartbeatSeconds: 15 },
  concurrency: 8,
  // pg-boss counts retries from 0; the run with retryCount = retryLimit is the last one it makes.
  handle: async (ctx, data, job) => {
    await deliverWebhook(ctx, data.delivery_id, { lastAttempt: job.retryCount >= RETRY_LIMIT });
  },
});
