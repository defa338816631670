import { createHmac, randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { users, type Webhook, webhookAttempts, webhookDeliveries, webhooks } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Invalid, NotFound, Unauthenticated, validateAll } from "../../errors.ts";
import { type PageRequest, pageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { CreateWebhookBody, type CreateWebhookInput, WEBHOOK_EVENTS } from "./schemas.ts";
import { checkWebhookUrl } from "./url.ts";

/** Each endpoint costs a delivery per event; disabled ones count too until deleted. */
export const MAX_WEBHOOKS_PER_USER = 20;
const TOO_MANY = `You may register at most ${MAX_WEBHOOKS_PER_USER} webhook endpoints.`;

/**
 * The endpoint's signing key: HMAC-SHA256(APP_KEY, "webhook:" + salt). Only the salt is stored, so
 * the database alone cannot sign a delivery, and the secret can be re-derived but never read back.
 */
export const webhookKey = (appKey: string, salt: string): Buffer =>
  createHmac("sha256", appKey).update(`webhook:${salt}`).digest();

/** The Standard Webhooks secret: `whsec_` + base64 of the key bytes. */
export const webhookSecret = (appKey: string, salt: string): string =>
  `whsec_${webhookKey(appKey, salt).toString("base64")}`;

function checkEvents(events: string[]): string[] {
  const unknown = events.filter((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown.length > 0) {
    throw new Invalid({
      events: [
        `The events field has unknown events: ${unknown.join(", ")} (known: ${WEBHOOK_EVENTS.join(", ")}).`,
      ],
    });
  }
  return [...new Set(events)];
}

/** The URL (its form and where it resolves) and the events, each checked when present, in one 422. */
const checkEndpoint = (ctx: Pick<AppContext, "config">, input: Partial<CreateWebhookInput>) =>
  validateAll(
    async () => (input.url === undefined ? undefined : checkWebhookUrl(ctx, input.url)),
    () => checkEvents(input.events ?? ["version.published"]),
  );

export const NewWebhookForm = form(CreateWebhookBody, (ctx, fields) => checkEndpoint(ctx, fields));

/** A registered endpoint with the signing secret it was given, which nothing can read back later. */
export type NewWebhook = Webhook & { secret: string };

export async function createWebhook(
  ctx: Pick<AppContext, "db" | "config" | "appKey">,
  userId: number,
  input: CreateWebhookInput,
): Promise<NewWebhook> {
  // The route's form checked the endpoint on the way in; checking it again here keeps the rule with
  // every caller, and it is the resolution closest to the insert.
  const [url, events] = await checkEndpoint(ctx, input);
  if (!url) throw new Error("checkEndpoint returned no URL for a required url");
  const salt = randomBytes(16).toString("base64url");
  // The URL was resolved above, outside the transaction: a slow DNS answer holds no lock.
  const row = await withTransaction(ctx, async (tx) => {
    // Two creates at 19 would both count 19 and both insert. Locking the user's row first makes the
    // second wait and then count 20; its own statement, so the count reads after the wait (READ
    // COMMITTED). NO KEY UPDATE still lets other tables' rows reference the user meanwhile.
    const [user] = await tx.db
      .select({ id: users.id })
      .from(users)
      .where(eq(users.id, userId))
      .for("no key update");
    if (!user) throw new Unauthenticated(); // the token's user was deleted a moment ago
    const [existing] = await tx.db
      .select({ count: count() })
      .from(webhooks)
      .where(eq(webhooks.userId, userId));
    if ((existing?.count ?? 0) >= MAX_WEBHOOKS_PER_USER) throw new Invalid({ url: [TOO_MANY] });
    const [inserted] = await tx.db
      .insert(webhooks)
      .values({ userId, url: url.href, events, secretSalt: salt })
      .returning();
    if (!inserted) throw new Error("webhook insert returned nothing");
    return inserted;
  });
  return { ...row, secret: webhookSecret(ctx.appKey, salt) };
}

/** A page of the user's endpoints, oldest first (`perPage + 1` rows: `simplePage` needs to see more). */
export function listWebhooks(
  ctx: Pick<AppContext, "db">,
  userId: number,
  page: PageRequest,
): Promise<Webhook[]> {
  return ctx.db
    .select()
    .from(webhooks)
    .where(eq(webhooks.userId, userId))
    .orderBy(asc(webhooks.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}

/** The user's own webhook; someone else's is as unknown as a missing one. */
export async function findOwnWebhook(ctx: Pick<AppContext, "db">, userId: number, id: number) {
  const [row] = await ctx.db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)));
  if (!row) throw new NotFound("Webhook");
  return row;
}

/** Deletes the endpoint with its deliveries; queued delivery jobs then find nothing and stop. */
export async function deleteWebhook(ctx: Pick<AppContext, "db">, userId: number, id: number) {
  const rows = await ctx.db
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.userId, userId)))
    .returning({ id: webhooks.id });
  if (rows.length === 0) throw new NotFound("Webhook");
}

/**
 * The page of deliveries asked for, of one of the user's endpoints. Someone else's endpoint is a 404
 * before the page is even read, as in Laravel; so the query's schema takes any string and pageRequest
 * checks it here, after the ownership.
 */
export async function listOwnDeliveries(
  ctx: Pick<AppContext, "db">,
  userId: number,
  webhookId: number,
  query: { page?: string; per_page?: string },
) {
  const webhook = await findOwnWebhook(ctx, userId, webhookId);
  const page = pageRequest(query);
  return { page, rows: await listDeliveries(ctx, webhook.id, page) };
}

/**
 * A page of an endpoint's deliveries, newest first, each with its attempts (oldest first). The caller
 * has made sure the endpoint is the user's (`findOwnWebhook`).
 */
export async function listDeliveries(ctx: Pick<AppContext, "db">, webhookId: number, page: PageRequest) {
  const deliveries = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.webhookId, webhookId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
  const ids = deliveries.map((delivery) => delivery.id);
  const attempts =
    ids.length === 0
      ? []
      : await ctx.db
          .select()
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.deliveryId, ids))
          .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id));
  return deliveries.map((delivery) => ({
    delivery,
    attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
  }));
}
