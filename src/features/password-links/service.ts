import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type User, users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Invalid } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { hashPassword } from "../auth/passwords.ts";
import { endEverySession } from "../sessions/service.ts";
import { findUserWithRole } from "../users/service.ts";
import { passwordLinkUrl } from "./email.ts";
import { passwordLinkEmail } from "./jobs.ts";
import { SetPasswordBody } from "./schemas.ts";
import { parseLinkToken, passwordFingerprint, signatureMatches, signLinkToken } from "./token.ts";

/** How long a link works: long enough for a weekend, short enough that an old e-mail is harmless. */
export const LINK_LIFETIME_MS = 72 * 60 * 60 * 1000;

/** One message for a tampered, expired, used or unknown link: the answer tells nothing about which. */
export const INVALID_LINK = "This password link is invalid or has expired.";
const invalidLink = () => new Invalid({ token: [INVALID_LINK] });

type LinkContext = Pick<AppContext, "db" | "appKey" | "config">;

export interface PasswordLink {
  url: string;
  expiresAt: Date;
  /** Queued for e-mailing (SMTP_URL is set), so the admin knows whether to pass it on themself. */
  emailed: boolean;
}

/** A link for `user` as it is now; `now` is a parameter so tests can issue one that has already expired. */
export function linkFor(ctx: LinkContext, user: Pick<User, "id" | "passwordHash">, now = new Date()) {
  const expires = Math.floor((now.getTime() + LINK_LIFETIME_MS) / 1000);
  const token = signLinkToken(
    ctx.appKey,
    { userId: user.id, expires },
    passwordFingerprint(user.passwordHash),
  );
  return { url: passwordLinkUrl(ctx.config.appUrl, token), expiresAt: new Date(expires * 1000), expires };
}

/**
 * Issues a one-time set-password link for the user with this id (404 when there is none). With
 * SMTP_URL set it is also e-mailed, by a queued job; the job carries the link's claims, not the
 * token, so the job table holds nothing that opens an account.
 */
export async function issuePasswordLink(
  ctx: Pick<AppContext, "db" | "appKey" | "config" | "jobs">,
  userId: number,
  now = new Date(),
): Promise<PasswordLink> {
  const { user } = await findUserWithRole(ctx, userId);
  const link = linkFor(ctx, user, now);
  if (ctx.config.smtpUrl) {
    await ctx.jobs.send(passwordLinkEmail, {
      user_id: user.id,
      expires: link.expires,
      fingerprint: passwordFingerprint(user.passwordHash),
    });
  }
  return { url: link.url, expiresAt: link.expiresAt, emailed: Boolean(ctx.config.smtpUrl) };
}

/** The user a token names and when it expires, if it is untampered, unexpired and unused; otherwise the one 422. */
export async function userOfLink(
  ctx: LinkContext,
  token: string | undefined,
  now = Date.now(),
): Promise<{ user: User; expiresAt: Date }> {
  const claims = token === undefined ? null : parseLinkToken(token);
  if (!claims) throw invalidLink();
  const [user] = await ctx.db.select().from(users).where(eq(users.id, claims.userId));
  if (!user || !signatureMatches(ctx.appKey, claims, passwordFingerprint(user.passwordHash)))
    throw invalidLink();
  if (claims.expires * 1000 <= now) throw invalidLink();
  return { user, expiresAt: new Date(claims.expires * 1000) };
}

/** A new password and a link that still works; a bad link is reported beside a bad password. */
export const SetPasswordForm = form(SetPasswordBody, async (ctx, fields) => {
  if (fields.token !== undefined) await userOfLink(ctx, fields.token);
});

/**
 * Sets the password a link was issued for and ends every session of the user. The update only
 * happens while the hash is still the one the link was checked against, so two uses racing each
 * other cannot both succeed; both writes are one transaction, so a failure leaves neither.
 */
export async function setPasswordWithLink(
  ctx: LinkContext,
  { token, password }: { token: string; password: string },
): Promise<void> {
  const { user } = await userOfLink(ctx, token);
  const passwordHash = await hashPassword(password);
  const unchanged: SQL | undefined =
    user.passwordHash === null ? isNull(users.passwordHash) : eq(users.passwordHash, user.passwordHash);
  await withTransaction(ctx, async (tx) => {
    const updated = await tx.db
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, user.id), unchanged))
      .returning({ id: users.id });
    if (updated.length === 0) throw invalidLink();
    await endEverySession(tx, user.id);
  });
}
