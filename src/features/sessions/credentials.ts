import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
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

/** The user with this e-mail (any case) and password; the same 422 for every kind of mismatch. */
export async function checkCredentials(
  ctx: Pick<AppContext, "db">,
  email: string,
  password: string,
): Promise<UserWithRole> {
  const [row] = await ctx.db
    .select()
    .from(users)
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(sql`lower(${users.email}) = lower(${email})`);
  const hash = row?.users.passwordHash ?? (await warmDummyHash());
  const matches = await verifyPassword(password, hash);
  if (!row?.users.passwordHash || !matches) throw new Invalid({ email: [BAD_CREDENTIALS] });
  return { user: row.users, role: row.roles };
}
