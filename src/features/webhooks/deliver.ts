import { createHmac } from "node:crypto";
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { webhookAttempts, webhookDeliveries, webhooks } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { payloadFor } from "../notifications/links.ts";
import { checkTarget } from "./address.ts";
import { webhookKey } from "./service.ts";

/** How long an endpoint has to answer. */
export const DELIVERY_TIMEOUT_MS = 15_000;
/** Longest error text kept per attempt. */
const MAX_ERROR_LENGTH = 500;

export interface DeliveryOptions {
  /** pg-boss has no retry left after this run, so a failure is final. */
  lastAttempt: boolean;
  timeoutMs?: number;
}

export type DeliveryOutcome = "skipped" | "succeeded" | "gone" | "refused";

/** A failed attempt that a later one may fix; thrown so pg-boss retries the job with backoff. */
export class DeliveryFailed extends Error {}

/** Standard Webhooks signature: `v1,` + base64 HMAC-SHA256(key bytes, "id.timestamp.body"). */
export const signDelivery = (key: Buffer, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;

interface Attempt {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Stopped before sending: the URL is invalid or its host resolves to a refused address. */
  refused: boolean;
}

/**
 * One attempt at one delivery (the `webhook.delivery` job). Every attempt is recorded; 2xx succeeds,
 * 410 Gone disables the endpoint and ends the delivery, an attempt the address check refuses ends it
 * as failed (another day of retries would only repeat the refusal), anything else (another status, a
 * timeout, a network error, a host that does not resolve) throws `DeliveryFailed` so pg-boss retries,
 * and on the last retry the delivery is marked failed.
 */
export async function deliverWebhook(
  ctx: Pick<AppContext, "db" | "config" | "appKey" | "log">,
  deliveryId: string,
  { lastAttempt, timeoutMs = DELIVERY_TIMEOUT_MS }: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const [row] = await ctx.db
    .select({ delivery: webhookDeliveries, webhook: webhooks })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .where(eq(webhookDeliveries.id, deliveryId));
  // Gone with its endpoint, sent already, or the endpoint said 410: nothing to do, nothing to retry.
  if (!row || row.webhook.disabledAt !== null || row.delivery.status === "succeeded") return "skipped";
  const { delivery, webhook } = row;

  const { refused, ...attempt } = await send(ctx, {
    url: webhook.url,
    id: delivery.id,
    body: JSON.stringify(payloadFor(ctx, delivery.payload, webhook.userId, delivery.createdAt)),
    key: webhookKey(ctx.appKey, webhook.secretSalt),
    timeoutMs,
  });
  const code = attempt.statusCode;
  const succeeded = code !== null && code >= 200 && code < 300;
  const gone = code === 410;
  const final = gone || refused || lastAttempt;
  const status = succeeded ? "succeeded" : final ? "failed" : "pending";

  const recorded = await withTransaction(ctx, async (tx) => {
    const [updated] = await tx.db
      .update(webhookDeliveries)
      .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, lastAttemptAt: sql`now()`, status })
      .where(eq(webhookDeliveries.id, delivery.id))
      .returning({ attempts: webhookDeliveries.attempts });
    if (!updated) return false; // the endpoint was deleted meanwhile
    await tx.db
      .insert(webhookAttempts)
      .values({ deliveryId: delivery.id, attempt: updated.attempts, ...attempt });
    if (gone) {
      await tx.db
        .update(webhooks)
        .set({ disabledAt: sql`now()` })
        .where(and(eq(webhooks.id, webhook.id), isNull(webhooks.disabledAt)));
    }
    return true;
  });
  if (!recorded || succeeded) return succeeded ? "succeeded" : "skipped";

  const fields = {
    delivery_id: delivery.id,
    webhook_id: webhook.id,
    status_code: code,
    error: attempt.error,
    final,
  };
  if (gone) {
    ctx.log.info("webhook endpoint gone (410), disabled", fields);
    return "gone";
  }
  if (refused) {
    ctx.log.warn("webhook delivery refused by the address check, failed without retry", fields);
    return "refused";
  }
  ctx.log.warn("webhook delivery attempt failed", fields);
  throw new DeliveryFailed(attempt.error ?? `HTTP ${code}`);
}

/** POSTs the signed body; never throws, whatever the endpoint or the network does. */
async function send(
  ctx: Pick<AppContext, "config">,
  target: { url: string; id: string; body: string; key: Buffer; timeoutMs: number },
): Promise<Attempt> {
  const url = URL.canParse(target.url) ? new URL(target.url) : null;
  if (!url) return { statusCode: null, durationMs: 0, error: "The URL is not valid.", refused: true };
  // Re-resolved on every attempt: the address seen at creation may have been swapped (DNS rebinding).
  const allowed = await checkTarget(url, ctx.config.webhookAllowPrivate);
  if (!allowed.ok) {
    const refused = allowed.kind === "refused";
    const error = refused ? `Refused: ${allowed.reason}` : allowed.reason;
    return { statusCode: null, durationMs: 0, error, refused };
  }

  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  const duration = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "depot-webhooks",
        "webhook-id": target.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signDelivery(target.key, target.id, timestamp, target.body),
      },
      body: target.body,
      // A redirect could lead anywhere, including to an address the check above refuses.
      redirect: "manual",
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    // Only the status matters; the body is not read, so a huge or endless one costs nothing.
    await response.body?.cancel().catch(() => {});
    const redirected = response.status >= 300 && response.status < 400;
    return {
      statusCode: response.status,
      durationMs: duration(),
      error: redirected ? "Redirects are not followed." : null,
      refused: false,
    };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    const message = timedOut
      ? `Timed out after ${target.timeoutMs} ms.`
      : error instanceof Error
        ? error.message
        : String(error);
    return {
      statusCode: null,
      durationMs: duration(),
      error: message.slice(0, MAX_ERROR_LENGTH),
      refused: false,
    };
  }
}
