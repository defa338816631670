import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenses, products, users } from "../../db/schema/index.ts";
import { htmlEmail } from "../mail/html.ts";
import { sendMail } from "../mail/mailer.ts";
import { passwordLinkUrl } from "../password-links/email.ts";
import { passwordFingerprint, signLinkToken } from "../password-links/token.ts";

const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The message a buyer gets: the product, the key, and (for a new customer) a set-password link. */
export function licenseKeyMessage(input: {
  name: string;
  productName: string;
  key: string;
  expires: Date | null;
  appUrl: string;
  passwordLink: { url: string; expiresAt: Date } | null;
}) {
  const product = input.productName.replace(/\s+/g, " ").trim();
  const subject = `Your license key for ${product}`;
  const link = input.passwordLink;
  const text = [
    `Hello ${input.name},`,
    "",
    `Your license key for ${product}:`,
    "",
    input.key,
    "",
    input.expires ? `It is valid until ${utc(input.expires)}.` : "It does not expire.",
    ...(link
      ? [
          "",
          "To see your licenses and downloads, choose a password for the depot dashboard with this link:",
          "",
          link.url,
          "",
          `The link works once, until ${utc(link.expiresAt)}.`,
        ]
      : ["", `Your licenses and downloads: ${input.appUrl}/dashboard/licenses`]),
  ].join("\n");
  const e = Bun.escapeHTML;
  const html = htmlEmail(
    subject,
    `<p>Hello ${e(input.name)},</p>
<p>Your license key for <strong>${e(product)}</strong>:</p>
<p><code style="font-size: 1.2em">${e(input.key)}</code></p>
<p>${input.expires ? `It is valid until ${e(utc(input.expires))}.` : "It does not expire."}</p>
${
  link
    ? `<p>To see your licenses and downloads, <a href="${e(link.url)}">choose a password for the depot dashboard</a>.</p>
<p style="color: #666">The link works once, until ${e(utc(link.expiresAt))}.</p>
`
    : `<p><a href="${e(`${input.appUrl}/dashboard/licenses`)}">Your licenses and downloads</a></p>\n`
}`,
  );
  return { subject, text, html };
}

/**
 * Sends one license's key to its owner. `link` is a set-password link's claims (a customer made by the
 * sale); a link already used by now is left out. A license gone by now is nothing to send; an SMTP
 * failure throws, so pg-boss retries.
 */
export async function sendLicenseKeyEmail(
  ctx: AppContext,
  data: { license_id: string; link: { expires: number; fingerprint: string } | null },
): Promise<void> {
  const smtpUrl = ctx.config.smtpUrl;
  if (!smtpUrl) {
    ctx.log.warn("e-mail skipped: SMTP_URL is not set", { license_id: data.license_id });
    return;
  }
  const [row] = await ctx.db
    .select({ license: licenses, user: users, productName: products.name })
    .from(licenses)
    .innerJoin(users, eq(users.id, licenses.userId))
    .innerJoin(products, eq(products.id, licenses.productId))
    .where(eq(licenses.id, data.license_id));
  if (!row) {
    ctx.log.info("license key e-mail skipped: the license is gone", { license_id: data.license_id });
    return;
  }
  const { license, user } = row;
  const link =
    data.link && passwordFingerprint(user.passwordHash) === data.link.fingerprint
      ? {
          url: passwordLinkUrl(
            ctx.config.appUrl,
            signLinkToken(ctx.appKey, { userId: user.id, expires: data.link.expires }, data.link.fingerprint),
          ),
          expiresAt: new Date(data.link.expires * 1000),
        }
      : null;
  const { messageId } = await sendMail(smtpUrl, {
    from: ctx.config.mailFrom,
    to: { name: user.name, address: user.email },
    ...licenseKeyMessage({
      name: user.name,
      productName: row.productName,
      key: license.key,
      expires: license.expires,
      appUrl: ctx.config.appUrl,
      passwordLink: link,
    }),
  });
  ctx.log.info("license key e-mail sent", { license_id: license.id, message_id: messageId });
}
