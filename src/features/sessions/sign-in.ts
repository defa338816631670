import type { AppContext } from "../../context.ts";
import type { Session } from "../../db/schema/index.ts";
import { requestState } from "../../http/request-state.ts";
import { sha256Hex } from "../auth/secrets.ts";
import type { UserWithRole } from "../users/service.ts";
import { readSessionCookie } from "./cookie.ts";
import { checkPassword, findUserByEmail } from "./credentials.ts";
import { endSession, startSession } from "./service.ts";
import { attemptSubject, SignInThrottle } from "./sign-in-throttle.ts";

export interface SignInClient {
  ip: string | null;
  userAgent: string | null;
  /** The token of the session this browser already has, if any. */
  previousToken: string | null;
}

/** The browser a request comes from, as a new session records it. */
export const clientOf = (request: Request): SignInClient => ({
  ip: requestState(request).ip,
  userAgent: request.headers.get("user-agent"),
  previousToken: readSessionCookie(request),
});

/**
 * A new session for whoever owns this e-mail address and password, throttled per user and per
 * address (sign-in-throttle.ts). Signing in again replaces the browser's previous session rather
 * than leaving it behind.
 */
export async function signIn(
  ctx: Pick<AppContext, "db" | "config">,
  credentials: { email: string; password: string },
  client: SignInClient,
): Promise<{ signedIn: UserWithRole; token: string; session: Session }> {
  const throttle = new SignInThrottle(ctx.db, "sign-in");
  const user = await findUserByEmail(ctx, credentials.email);
  const subject = attemptSubject(user?.user ?? null, credentials.email);
  await throttle.begin(subject, client.ip);
  const signedIn = await checkPassword(user, credentials.password);
  await throttle.succeeded(subject, client.ip);
  if (client.previousToken) await endSession(ctx, sha256Hex(client.previousToken));
  const { token, session } = await startSession(ctx, signedIn.user.id, client);
  return { signedIn, token, session };
}
