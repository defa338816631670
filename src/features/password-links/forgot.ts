import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { findUserByEmail } from "../sessions/credentials.ts";
import { attemptSubject, SignInThrottle } from "../sessions/sign-in-throttle.ts";
import { passwordLinkEmail } from "./jobs.ts";
import { linkFor } from "./service.ts";
import { passwordFingerprint } from "./token.ts";

/** A user asking again within this long gets no second e-mail: the first link still works. */
const ONE_EMAIL_PER_MS = 10 * 60 * 1000;

/** A uuid made from `text`: the same request in the same window is the same pg-boss job id, queued once. */
const uuidFrom = (text: string) => {
  const hex = createHash("sha256").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

/**
 * "Forgot password": with SMTP_URL set, the user with this address (if any) is e-mailed a set-password
 * link; the answer is the same whether or not the address has an account, and asking is throttled per
 * address and per client like sign-in (429). Without SMTP_URL nothing is sent, and the answer says so,
 * so the page can send the person to an admin. Returns whether links go out by e-mail at all.
 */
export async function forgotPassword(
  ctx: Pick<AppContext, "db" | "config" | "jobs" | "appKey">,
  email: string,
  ip: string | null,
  now = new Date(),
): Promise<boolean> {
  if (!ctx.config.smtpUrl) return false;
  const found = await findUserByEmail(ctx, email);
  await new SignInThrottle(ctx.db, "forgot-password").begin(attemptSubject(found?.user ?? null, email), ip);
  if (!found) return true;
  const { user } = found;
  const link = linkFor(ctx, user, now);
  const fingerprint = passwordFingerprint(user.passwordHash);
  const window = Math.floor(now.getTime() / ONE_EMAIL_PER_MS);
  await ctx.jobs.send(
    passwordLinkEmail,
    { user_id: user.id, expires: link.expires, fingerprint },
    { id: uuidFrom(`forgot-password:${user.id}:${fingerprint}:${window}`) },
  );
  return true;
}
