import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { users } from "../../db/schema/index.ts";
import { htmlEmail } from "../mail/html.ts";
import { sendMail } from "../mail/mailer.ts";
import { passwordFingerprint, signLinkToken } from "./token.ts";

/** The link page's address for a token: the dashboard's /set-password under APP_URL. */
export const passwordLinkUrl = (appUrl: string, token: string) =>
  `${appUrl}/set-password?token=${encodeURIComponent(token)}`;

const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The message: whom it is for, the link, until when it works, and what to do if it was not expected. */
export function passwordLinkMessage(name: string, url: string, expiresAt: Date) {
  const subject = "Set your depot password";
  const text = [
    `Hello ${name},`,
    "",
    "Choose a password for the depot dashboard with this link:",
    "",
    url,
    "",
    `It works once, until ${utc(expiresAt)}.`,
    "If you did not expect this e-mail, ignore it: nothing changes until the link is used.",
  ].join("\n");
  const e = Bun.escapeHTML;
  const html = htmlEmail(
    subject,
    `<p>Hello ${e(name)},</p>
<p>Choose a password for the depot dashboard:</p>
<p><a href="${e(url)}">Set your password</a></p>
<p style="color: #666">It works once, until ${e(utc(expiresAt))}. If you did not expect this e-mail, ignore it: nothing changes until the link is used.</p>
`,
  );
  return { subject, text, html };
}

/**
 * Sends one set-password e-mail. A user who is gone, or whose password changed since the link was
 * issued (the link is dead), gets nothing; an SMTP failure throws, so pg-boss retries.
 */
export async function sendPasswordLinkEmail(
  ctx: AppContext,
  data: { user_id: number; expires: number; fingerprint: string },
): Promise<void> {
  const smtpUrl = ctx.config.smtpUrl;
  if (!smtpUrl) {
    ctx.log.warn("e-mail skipped: SMTP_URL is not set", { user_id: data.user_id });
    return;
  }
  const [user] = await ctx.db.select().from(users).where(eq(users.id, data.user_id));
  if (!user || passwordFingerprint(user.passwordHash) !== data.fingerprint) {
    ctx.log.info("password link e-mail skipped: the link is no longer valid", { user_id: data.user_id });
    return;
  }
  const token = signLinkToken(ctx.appKey, { userId: user.id, expires: data.expires }, data.fingerprint);
  const url = passwordLinkUrl(ctx.config.appUrl, token);
  const { messageId } = await sendMail(smtpUrl, {
    from: ctx.config.mailFrom,
    to: { name: user.name, address: user.email },
    ...passwordLinkMessage(user.name, url, new Date(data.expires * 1000)),
  });
  ctx.log.info("password link e-mail sent", { user_id: user.id, message_id: messageId });
}
