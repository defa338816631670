import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { sendNotificationEmail } from "./send.ts";

/**
 * One e-mail per notification, each its own job with its own retries. The job id is the
 * notification's id, so a re-run fan-out queues no second e-mail.
 */
export const notificationEmail = defineQueue({
  name: "notification.email",
  payload: t.Object({ notification_id: t.String({ format: "uuid" }) }),
  options: { retryLimit: 5, retryDelay: 60, retryBackoff: true, heartbeatSeconds: 15 },
  // Sends overlap SMTP round trips; the pooled transport (mailer.ts) keeps a few connections open.
  concurrency: 10,
  handle: (ctx, data) => sendNotificationEmail(ctx, data.notification_id),
});
