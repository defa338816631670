import { and, asc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { webhookAttempts, webhookDeliveries } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError, NotFound } from "../../errors.ts";
import { webhookDelivery } from "./jobs.ts";
import { findOwnWebhook } from "./service.ts";

/**
 * "Send again": the same delivery is queued once more, not a copy of it. Its `webhook-id` stays the
 * same, as Standard Webhooks asks of a message sent again (a receiver that already handled it may
 * skip it), its attempts go on being listed under it, and there is no second row for one event.
 * It goes back to `pending` with a job of its own (a full set of retries); a retry schedule still
 * running carries on beside it, and whichever attempt succeeds first ends both (the other finds the
 * delivery succeeded and skips). An endpoint disabled by a 410 gets nothing: 409.
 */
export async function resendDelivery(
  ctx: Pick<AppContext, "db" | "jobs">,
  userId: number,
  webhookId: number,
  deliveryId: string,
) {
  const webhook = await findOwnWebhook(ctx, userId, webhookId);
  if (webhook.disabledAt !== null) {
    throw new AppError(409, "This endpoint is disabled (it answered 410 Gone): nothing is sent to it.");
  }
  const delivery = await withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(webhookDeliveries)
      .set({ status: "pending" })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhook.id)))
      .returning();
    if (!row) throw new NotFound("Delivery");
    // The job exists if and only if the delivery is pending again (the outbox, as publishing does).
    await ctx.jobs.sendInTransaction(tx.db, webhookDelivery, { delivery_id: row.id });
    return row;
  });
  const attempts = await ctx.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, delivery.id))
    .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id));
  return { delivery, attempts };
}
