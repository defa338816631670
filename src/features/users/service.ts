import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Role, roles, type User, users } from "../../db/schema/index.ts";
import { FieldErrors, Forbidden, Invalid, NotFound } from "../../errors.ts";
import { checkBodyWith } from "../../validation/body-checks.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { CreateUserBody, type CreateUserInput } from "./schemas.ts";

export interface UserWithRole {
  user: User;
  role: Role;
}

/** The role must exist and the e-mail be free (case-insensitively); both problems in one 422. */
async function checkNewUser(ctx: Pick<AppContext, "db">, input: Partial<CreateUserInput>): Promise<Role> {
  const errors = new FieldErrors();
  const [role] = await ctx.db
    .select()
    .from(roles)
    .where(eq(roles.name, input.role ?? "customer"));
  if (!role) errors.add("role", "The selected role is invalid.");
  if (input.email !== undefined) {
    const [taken] = await ctx.db
      .select({ id: users.id })
      .from(users)
      .where(sql`lower(${users.email}) = lower(${input.email})`);
    if (taken) errors.add("email", "The email has already been taken.");
  }
  errors.throwIfAny();
  if (!role) throw new Invalid(errors.messages); // recorded above
  return role;
}

checkBodyWith(CreateUserBody, (ctx, fields) => checkNewUser(ctx, fields));

/** `passwordHash` (argon2id, see auth/passwords.ts) lets the user sign in to the dashboard. */
export async function createUser(
  ctx: Pick<AppContext, "db">,
  input: CreateUserInput,
  passwordHash: string | null = null,
): Promise<UserWithRole> {
  const role = await checkNewUser(ctx, input);
  // The unique index on lower(email) still guards a race between the check and the insert.
  const [user] = await ctx.db
    .insert(users)
    .values({ name: input.name, email: input.email, roleId: role.id, passwordHash })
    .onConflictDoNothing()
    .returning();
  if (!user) throw new Invalid({ email: ["The email has already been taken."] });
  return { user, role };
}

/** Sets the password of the user with this e-mail (any case); false when there is no such user. */
export async function setPassword(ctx: Pick<AppContext, "db">, email: string, passwordHash: string) {
  const updated = await ctx.db
    .update(users)
    .set({ passwordHash })
    .where(sql`lower(${users.email}) = lower(${email})`)
    .returning({ id: users.id });
  return updated.length > 0;
}

/**
 * A user as `actor` may read them: themself, or with `users.view`. Like Laravel, the 403 comes before
 * the look-up, so an outsider cannot tell which ids exist.
 */
export function readUser(ctx: Pick<AppContext, "db">, actor: Actor, id: number): Promise<UserWithRole> {
  if (actor.user.id !== id && !allows(actor.permissions, "users.view")) throw new Forbidden();
  return findUserWithRole(ctx, id);
}

export async function findUserWithRole(ctx: Pick<AppContext, "db">, id: number): Promise<UserWithRole> {
  const [row] = await ctx.db
    .select()
    .from(users)
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(eq(users.id, id));
  if (!row) throw new NotFound("User");
  return { user: row.users, role: row.roles };
}

export const toRoleJson = (role: Role) => ({
  id: role.id,
  name: role.name,
  permissions: role.permissions,
  created_at: role.createdAt.toISOString(),
  updated_at: role.updatedAt.toISOString(),
});

export const toUserJson = ({ user, role }: UserWithRole) => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: toRoleJson(role),
});
