import { and, asc, eq, ilike, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { emailMatches } from "../../db/email-key.ts";
import { containsPattern } from "../../db/like.ts";
import { type Role, roles, type User, users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors, Forbidden, Invalid, NotFound } from "../../errors.ts";
import type { PageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { CreateUserBody, type CreateUserInput, UpdateUserBody, type UpdateUserInput } from "./schemas.ts";

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
      .where(emailMatches(users.email, input.email));
    if (taken) errors.add("email", "The email has already been taken.");
  }
  errors.throwIfAny();
  if (!role) throw new Invalid(errors.messages); // recorded above
  return role;
}

/** A new user: its fields, a role that exists and an e-mail nobody has. */
export const NewUserForm = form(CreateUserBody, (ctx, fields) => checkNewUser(ctx, fields));

/** `passwordHash` (argon2id, see auth/passwords.ts) lets the user sign in to the dashboard. */
export async function createUser(
  ctx: Pick<AppContext, "db">,
  input: CreateUserInput,
  passwordHash: string | null = null,
): Promise<UserWithRole> {
  const role = await checkNewUser(ctx, input);
  // The unique index on the address (db/email-key.ts) still guards a race between the check and the insert.
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
    .where(emailMatches(users.email, email))
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

const invalidRole = () => new Invalid({ role: ["The selected role is invalid."] });

async function roleNamed(ctx: Pick<AppContext, "db">, name: string): Promise<Role | null> {
  const [role] = await ctx.db.select().from(roles).where(eq(roles.name, name));
  return role ?? null;
}

/** The role a list filter names (empty: none); an unknown role is a 422, as a misspelt filter should be. */
export async function roleFilter(
  ctx: Pick<AppContext, "db">,
  name: string | undefined,
): Promise<Role | null> {
  if (!name) return null;
  const role = await roleNamed(ctx, name);
  if (!role) throw invalidRole();
  return role;
}

/** Users by name (then id), optionally those whose name or e-mail contains `search` (any case), of `role`. */
export async function listUsers(
  ctx: Pick<AppContext, "db">,
  filters: { search?: string; role: Role | null },
  page: PageRequest,
): Promise<UserWithRole[]> {
  const { role } = filters;
  const search = filters.search?.trim();
  const rows = await ctx.db
    .select()
    .from(users)
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(
      and(
        role ? eq(users.roleId, role.id) : undefined,
        search
          ? or(ilike(users.name, containsPattern(search)), ilike(users.email, containsPattern(search)))
          : undefined,
      ),
    )
    .orderBy(asc(sql`lower(${users.name})`), asc(users.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
  return rows.map((row) => ({ user: row.users, role: row.roles }));
}

/** A change to a user: its fields, and a role that exists. */
export const UserChangeForm = form(UpdateUserBody, async (ctx, fields) => {
  if (typeof fields.role === "string" && !(await roleNamed(ctx, fields.role))) throw invalidRole();
});

/** The message of the 422 that keeps depot from losing its last admin. */
export const LAST_ADMIN =
  "depot needs at least one admin: give another user an admin role before changing this one.";

const isAdminRole = (role: Pick<Role, "permissions">) => role.permissions.includes("*");

/**
 * Renames a user and/or gives them another role (by name). Taking the last admin's admin role away
 * (an admin being a user whose role grants `*`) is a 422 on `role`: nobody could then manage depot
 * but from the CLI. The admins are locked while this runs, so two admins demoting each other at the
 * same moment cannot both succeed.
 */
export async function updateUser(
  ctx: Pick<AppContext, "db">,
  id: number,
  input: UpdateUserInput,
): Promise<UserWithRole> {
  return withTransaction(ctx, async (tx) => {
    const current = await findUserWithRole(tx, id);
    const role = input.role === undefined ? current.role : await roleNamed(tx, input.role);
    if (!role) throw invalidRole();
    if (isAdminRole(current.role) && !isAdminRole(role) && (await lockedAdminCount(tx)) <= 1) {
      throw new Invalid({ role: [LAST_ADMIN] });
    }
    if (input.name === undefined && role.id === current.role.id) return current;
    const [user] = await tx.db
      .update(users)
      .set({ name: input.name, roleId: role.id })
      .where(eq(users.id, id))
      .returning();
    if (!user) throw new NotFound("User");
    return { user, role };
  });
}

/** How many users have an admin role, holding their rows until the transaction ends. */
async function lockedAdminCount(ctx: Pick<AppContext, "db">): Promise<number> {
  const admins = await ctx.db
    .select({ id: users.id })
    .from(users)
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(sql`${roles.permissions} @> '["*"]'::jsonb`)
    .for("update", { of: users });
  return admins.length;
}
