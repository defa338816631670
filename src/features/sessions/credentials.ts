import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { emailMatches } from "../../db/email-key.ts";
import { roles, users } from "../../db/schema/index.ts";
import { Invalid } from "../../errors.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import { randomSecret } from "../auth/secrets.ts";
import type { UserWithRole } from "../users/service.ts";

export const BAD_CREDENTIALS = "These credentials do not match our records.";

/**
 * Checked when there is no hash to check (no such user, or no password): argon2 then takes as long as
 * for a real user, so the answer's timing does not tell which e-mail addresses exist.
 */
let dummyHash: Promise<string> | undefined;
export const warmDummyHash = () => {
  dummyHash ??= hashPassword(randomSecret(16));
  return dummyHash;
};

/** The user this e-mail address belongs to (any case, db/email-key.ts), or null. */
export async function findUserByEmail(
  ctx: Pick<AppContext, "db">,
  email: string,
): Promise<UserWithRole | null> {
  const [row] = await ctx.db
    .select()
    .from(users)
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(emailMatches(users.email, email));
  return row ? { user: row.users, role: row.roles } : null;
}

/** `found` when `password` is theirs; the same 422 for every kind of mismatch, no user included. */
export async function checkPassword(found: UserWithRole | null, password: string): Promise<UserWithRole> {
  const hash = found?.user.passwordHash ?? (await warmDummyHash());
  const matches = await verifyPassword(password, hash);
  if (!found?.user.passwordHash || !matches) throw new Invalid({ email: [BAD_CREDENTIALS] });
  return found;
}
