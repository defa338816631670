import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { notifications, users, versions } from "../../db/schema/index.ts";
import { withDownloadLink } from "../notifications/links.ts";
import { sendMail } from "./mailer.ts";
import { versionEmail } from "./version-email.ts";

/**
 * Sends the e-mail of one notification to its user. A notification that is gone (its user or version
 * deleted since the fan-out) is nothing to send; any SMTP failure throws, so pg-boss retries the job.
 */
export async function sendNotificationEmail(ctx: AppContext, notificationId: string): Promise<void> {
  const smtpUrl = ctx.config.smtpUrl;
  if (!smtpUrl) {
    // Queued while SMTP_URL was set, run after it was unset: the operator turned e-mail off.
    ctx.log.warn("e-mail skipped: SMTP_URL is not set", { notification_id: notificationId });
    return;
  }
  const [row] = await ctx.db
    .select({
      data: notifications.data,
      userId: notifications.userId,
      createdAt: notifications.createdAt,
      name: users.name,
      email: users.email,
      changelog: versions.changelog,
      changelogFormat: versions.changelogFormat,
    })
    .from(notifications)
    .innerJoin(users, eq(users.id, notifications.userId))
    .innerJoin(versions, eq(versions.id, notifications.versionId))
    .where(eq(notifications.id, notificationId));
  if (!row) {
    ctx.log.info("e-mail skipped: notification gone", { notification_id: notificationId });
    return;
  }
  const email = versionEmail({
    recipientName: row.name,
    data: withDownloadLink(ctx, row.data, row.userId, row.createdAt),
    changelog: row.changelog,
    changelogFormat: row.changelogFormat,
    appUrl: ctx.config.appUrl,
  });
  const { messageId } = await sendMail(smtpUrl, {
    from: ctx.config.mailFrom,
    to: { name: row.name, address: row.email },
    ...email,
  });
  ctx.log.info("e-mail sent", { notification_id: notificationId, message_id: messageId });
}
