import { createHmac } from "node:crypto";
import { and, asc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { selectRows } from "../../db/rows.ts";
import {
  licenses,
  notifications,
  products,
  purchaseBenefits,
  type VersionPublishedData,
  versionDownloads,
  versions,
  webhookDeliveries,
} from "../../db/schema/index.ts";
import { holdsProduct } from "../licenses/holders.ts";
import { notificationEmail } from "../mail/jobs.ts";
import { downloadUrl } from "../versions/urls.ts";
import { webhookDelivery } from "../webhooks/jobs.ts";

/** What the fan-out tells holders about: a version published, or one yanked (with its reason). */
type VersionEvent = "version.published" | "version.yanked";
const BATCH = 1000;

/**
 * The `version.published` worker. Each step is idempotent, so a retried, duplicated or
 * killed-and-restarted job converges on exactly one notification per holder, one e-mail job per
 * notification and one delivery per endpoint:
 *  1. one set-based INSERT … SELECT of a notification per holder (ON CONFLICT DO NOTHING);
 *  2. e-mail jobs in batches, each with its notification's id as job id;
 *  3. one delivery row per subscribed endpoint (holders' and the product owner's), with a
 *     deterministic id, and a job per delivery with that id.
 */
export async function notifyHolders(ctx: AppContext, versionId: number): Promise<void> {
  const notice = await notificationData(ctx, versionId);
  if (!notice) {
    ctx.log.info("version gone before its notifications", { version_id: versionId });
    return;
  }
  // Only a job enqueued before a draft existed could get here; releasing it enqueues a new one.
  if (notice.status === "draft") return;
  await insertNotifications(ctx, notice, "version.published", sql`TRUE`);
  if (ctx.config.smtpUrl) await queueEmails(ctx, versionId);
  await queueWebhookDeliveries(ctx, notice, "version.published");
}

/**
 * The `version.yanked` worker: the same steps for the holders who downloaded the version (the
 * version_downloads table), with the vendor's reason in the data; no e-mail. Once per user and
 * endpoint and version, like a publication: yanking it again after undoing a yank tells nobody twice.
 */
export async function notifyYanked(ctx: AppContext, versionId: number): Promise<void> {
  const notice = await notificationData(ctx, versionId);
  if (!notice) {
    ctx.log.info("version gone before its notifications", { version_id: versionId });
    return;
  }
  // Undone before the job ran: there is nothing to tell.
  if (notice.status !== "yanked") return;
  const downloaded = sql`${licenses.userId} IN (SELECT ${versionDownloads.userId} FROM ${versionDownloads} WHERE ${versionDownloads.versionId} = ${versionId})`;
  const yanked = { ...notice, data: { ...notice.data, yank_reason: notice.yankReason } };
  await insertNotifications(ctx, yanked, "version.yanked", downloaded);
  await queueWebhookDeliveries(ctx, yanked, "version.yanked");
}

async function notificationData(ctx: AppContext, versionId: number) {
  const [row] = await ctx.db
    .select({
      version: versions,
      productName: products.name,
      benefitName: purchaseBenefits.name,
      optionId: purchaseBenefits.optionId,
    })
    .from(versions)
    .innerJoin(products, eq(products.id, versions.productId))
    .leftJoin(purchaseBenefits, eq(purchaseBenefits.id, versions.purchaseBenefitId))
    .where(eq(versions.id, versionId));
  if (!row) return null;
  const { version } = row;
  const data: VersionPublishedData = {
    product_id: version.productId,
    product_name: row.productName,
    version_id: version.id,
    version_number: version.versionNumber,
    title: version.title,
    benefit_name: row.benefitName,
    // Unsigned: every reader gets it signed for themselves when it is shown (links.ts).
    download_url: downloadUrl(ctx.config.appUrl, version),
  };
  return {
    data,
    productId: version.productId,
    optionId: row.optionId,
    status: version.status,
    yankReason: version.yankReason,
  };
}

type Notice = NonNullable<Awaited<ReturnType<typeof notificationData>>>;

/** One notification per holder (those `recipients` admits), in one statement: the holder rule selects the rows. */
async function insertNotifications(
  ctx: AppContext,
  { data, productId, optionId }: Notice,
  event: VersionEvent,
  recipients: SQL,
) {
  await ctx.db.execute(sql`
    INSERT INTO ${notifications} (type, user_id, version_id, data)
    SELECT DISTINCT ${event}, ${licenses.userId}, ${data.version_id}::bigint, ${JSON.stringify(data)}::jsonb
    FROM ${licenses}
    WHERE ${holdsProduct(productId, optionId)} AND ${recipients}
    ON CONFLICT (user_id, version_id, type) DO NOTHING`);
}

/** One job per notification of this version, in batches, walking the notifications by id. */
async function queueEmails(ctx: AppContext, versionId: number) {
  let after = "00000000-0000-0000-0000-000000000000";
  for (;;) {
    const batch = await ctx.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(
        and(
          eq(notifications.versionId, versionId),
          eq(notifications.type, "version.published"),
          gt(notifications.id, after),
        ),
      )
      .orderBy(asc(notifications.id))
      .limit(BATCH);
    await ctx.jobs.insertMany(
      notificationEmail,
      batch.map(({ id }) => ({ id, data: { notification_id: id } })),
    );
    const last = batch.at(-1);
    if (!last || batch.length < BATCH) return;
    after = last.id;
  }
}

/**
 * A delivery id: the same for one endpoint, event and version on every run, different in every
 * installation (receivers deduplicate on `webhook-id`, and may hear from staging and production), and
 * a well-formed RFC 4122 uuid (version 5 bits; the hash is MD5 of an HMAC-derived namespace).
 */
function deliveryIdSql(appKey: string, webhookId: SQL, event: VersionEvent, versionId: number): SQL {
  const namespace = createHmac("sha256", appKey).update("webhook-delivery-ids").digest("hex");
  const hash = sql`md5(${namespace} || ':' || ${webhookId} || ':' || ${event} || ':' || ${versionId})`;
  return sql`overlay(overlay(${hash} placing '5' from 13) placing '8' from 17)::uuid`;
}

/**
 * Endpoints subscribed to the event, of the holders just notified and of the product's owners. The
 * delivery id is derived from (endpoint, event, version) so a re-run finds the same rows.
 */
async function queueWebhookDeliveries(ctx: AppContext, { data, productId }: Notice, event: VersionEvent) {
  const payload = { type: event, timestamp: new Date().toISOString(), data };
  await ctx.db.execute(sql`
    INSERT INTO webhook_deliveries (id, webhook_id, event, subject_id, payload)
    SELECT ${deliveryIdSql(ctx.appKey, sql`w.id`, event, data.version_id)}, w.id, ${event}, ${data.version_id}, ${JSON.stringify(payload)}::jsonb
    FROM webhooks w
    WHERE w.disabled_at IS NULL
      AND w.events @> ${JSON.stringify([event])}::jsonb
      AND (w.user_id IN (SELECT n.user_id FROM notifications n WHERE n.version_id = ${data.version_id} AND n.type = ${event})
        OR w.user_id IN (SELECT user_id FROM products WHERE id = ${productId}
                         UNION SELECT vendor_id FROM products WHERE id = ${productId} AND vendor_id IS NOT NULL))
    ON CONFLICT (webhook_id, event, subject_id) DO NOTHING`);
  const pending = await selectRows<{ id: string }>(
    ctx.db,
    sql`SELECT id FROM ${webhookDeliveries} WHERE event = ${event} AND subject_id = ${data.version_id} AND status = 'pending'`,
  );
  for (let i = 0; i < pending.length; i += BATCH) {
    await ctx.jobs.insertMany(
      webhookDelivery,
      pending.slice(i, i + BATCH).map(({ id }) => ({ id, data: { delivery_id: id } })),
    );
  }
}
