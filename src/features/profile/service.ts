import { and, eq, ne } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { sessions, users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import type { SignedIn } from "../sessions/service.ts";
import { attemptSubject, SignInThrottle } from "../sessions/sign-in-throttle.ts";
import { findUserWithRole } from "../users/service.ts";
import { ChangePasswordBody, type ChangePasswordInput } from "./schemas.ts";

const MISMATCH = "The password field confirmation does not match.";
const WRONG_PASSWORD = "The password is incorrect.";

/** Renames the user; surrounding spaces are dropped, and a name of spaces only is no name. */
export async function renameUser(ctx: Pick<AppContext, "db">, userId: number, name: string) {
  const trimmed = name.trim();
  if (trimmed === "") throw new Invalid({ name: ["The name field is required."] });
  const updated = await ctx.db
    .update(users)
    .set({ name: trimmed })
    .where(eq(users.id, userId))
    .returning({ id: users.id });
  if (updated.length === 0) throw new NotFound("User");
  return findUserWithRole(ctx, userId);
}

/**
 * A new password typed twice alike. A body whose current password and confirmation both passed the
 * schema goes on to changePassword, which names a mismatch beside a wrong current password: one 422
 * for both, and the wrong guess still counts against the throttle.
 */
export const PasswordChangeForm = form(ChangePasswordBody, async (_ctx, fields) => {
  if (fields.current_password !== undefined && fields.password_confirmation !== undefined) return;
  if (fields.password !== undefined && fields.password !== fields.password_confirmation) {
    throw new Invalid({ password: [MISMATCH] });
  }
});

/**
 * Changes the user's password after checking the current one, and ends every OTHER session of theirs
 * (`keepSessionId` is the one making the change, which stays signed in): whoever else knew the old
 * password is out. Bearer tokens are not touched, as with sign-out-everywhere. Both writes are one
 * transaction.
 */
export async function changePassword(
  ctx: Pick<AppContext, "db">,
  userId: number,
  keepSessionId: string,
  input: ChangePasswordInput,
): Promise<void> {
  const { user } = await findUserWithRole(ctx, userId);
  const errors = new FieldErrors();
  const matches =
    user.passwordHash !== null && (await verifyPassword(input.current_password, user.passwordHash));
  if (!matches) errors.add("current_password", WRONG_PASSWORD);
  if (input.password !== input.password_confirmation) errors.add("password", MISMATCH);
  errors.throwIfAny();
  const passwordHash = await hashPassword(input.password);
  await withTransaction(ctx, async (tx) => {
    await tx.db.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    await tx.db.delete(sessions).where(and(eq(sessions.userId, user.id), ne(sessions.id, keepSessionId)));
  });
}

/**
 * changePassword for the signed-in user, throttled as sign-in is (5 a minute per user, 20 per
 * address): guessing the current password is guessing a sign-in, and a session left open must not
 * find the password it was opened with. The session asking is the one that stays. Only a wrong current password counts as a failed attempt.
 */
export async function changeOwnPassword(
  ctx: Pick<AppContext, "db">,
  { user, session }: Pick<SignedIn, "user" | "session">,
  ip: string | null,
  input: ChangePasswordInput,
): Promise<void> {
  const throttle = new SignInThrottle(ctx.db, "password");
  const subject = attemptSubject(user, user.email);
  await throttle.begin(subject, ip);
  try {
    await changePassword(ctx, user.id, session.id, input);
  } catch (error) {
    if (!(error instanceof Invalid && error.errors.current_password)) await throttle.succeeded(subject, ip);
    throw error;
  }
  await throttle.succeeded(subject, ip);
}
