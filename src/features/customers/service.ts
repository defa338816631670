import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { emailMatches } from "../../db/email-key.ts";
import { roles, type User, users } from "../../db/schema/index.ts";

/** A buyer by e-mail address: the user who has it, or a new customer (no password yet). */
export interface Customer {
  user: User;
  /** Made just now: they have no password and are sent a set-password link with their key. */
  created: boolean;
}

/** The name a customer gets when the seller gave none: the address's local part ("ada" for ada@…). */
const nameFrom = (email: string) => email.split("@", 1)[0] || email;

/**
 * The user whose address is `email` (any case), or a new `customer` with it. Two sales to one new
 * address at once make one user: the loser of the insert race (the unique index on the address) reads
 * the winner's row.
 */
export async function findOrCreateCustomer(
  ctx: Pick<AppContext, "db">,
  email: string,
  name?: string | null,
): Promise<Customer> {
  const existing = await userByEmail(ctx, email);
  if (existing) return { user: existing, created: false };
  const [user] = await ctx.db
    .insert(users)
    .values({ name: name?.trim() || nameFrom(email), email, roleId: await customerRoleId(ctx) })
    .onConflictDoNothing()
    .returning();
  if (user) return { user, created: true };
  const winner = await userByEmail(ctx, email);
  if (!winner) throw new Error(`no user for ${email} after a conflicting insert`);
  return { user: winner, created: false };
}

async function userByEmail(ctx: Pick<AppContext, "db">, email: string): Promise<User | null> {
  const [user] = await ctx.db.select().from(users).where(emailMatches(users.email, email));
  return user ?? null;
}

/** The seeded `customer` role (no API deletes a role). */
async function customerRoleId(ctx: Pick<AppContext, "db">): Promise<number> {
  const [role] = await ctx.db.select({ id: roles.id }).from(roles).where(eq(roles.name, "customer"));
  if (!role) throw new Error("the customer role is missing");
  return role.id;
}
