import { and, asc, count, eq, ne } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { type Role, roles, users } from "../../db/schema/index.ts";
import { AppError, Forbidden, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { CreateRoleBody, type CreateRoleInput, UpdateRoleBody, type UpdateRoleInput } from "./schemas.ts";

const nameTaken = () => new Invalid({ name: ["The name has already been taken."] });

/** A new role: a name nobody has and known permissions. */
export const NewRoleForm = form(CreateRoleBody, async (ctx, fields) => {
  if (typeof fields.name !== "string") return;
  const [existing] = await ctx.db.select({ id: roles.id }).from(roles).where(eq(roles.name, fields.name));
  if (existing) throw nameTaken();
});

/** Adds a role beside the seeded admin, vendor and customer. */
export async function createRole(ctx: Pick<AppContext, "db">, input: CreateRoleInput): Promise<Role> {
  const [role] = await ctx.db
    .insert(roles)
    .values({ name: input.name, permissions: input.permissions })
    .onConflictDoNothing({ target: roles.name })
    .returning();
  if (!role) throw nameTaken();
  return role;
}

/** Every role, by name, with how many users have it (one grouped query). */
export async function listRoles(ctx: Pick<AppContext, "db">): Promise<{ role: Role; users: number }[]> {
  return ctx.db
    .select({ role: roles, users: count(users.id) })
    .from(roles)
    .leftJoin(users, eq(users.roleId, roles.id))
    .groupBy(roles.id)
    .orderBy(asc(roles.name));
}

/** The roles depot seeds and its own code names (a new user is a customer): never changed or deleted. */
export const BUILT_IN_ROLES: readonly string[] = ["admin", "vendor", "customer"];

/** A role's changes: the name's uniqueness depends on which role it is, so the service checks it. */
export const RoleChangeForm = form(UpdateRoleBody, async () => {});

/** The role, unless it is missing (404) or built in (403). */
async function changeableRole(ctx: Pick<AppContext, "db">, id: number): Promise<Role> {
  const [role] = await ctx.db.select().from(roles).where(eq(roles.id, id));
  if (!role) throw new NotFound("Role");
  if (BUILT_IN_ROLES.includes(role.name)) {
    throw new Forbidden("The built-in roles admin, vendor and customer cannot be changed.");
  }
  return role;
}

/** Renames a role and/or gives it other permissions; its users have the new ones at their next request. */
export async function updateRole(
  ctx: Pick<AppContext, "db">,
  id: number,
  input: UpdateRoleInput,
): Promise<Role> {
  const role = await changeableRole(ctx, id);
  if (input.name !== undefined) {
    const [other] = await ctx.db
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.name, input.name), ne(roles.id, role.id)));
    if (other) throw nameTaken();
  }
  const [changed] = await ctx.db
    .update(roles)
    .set({ name: input.name ?? role.name, permissions: input.permissions ?? role.permissions })
    .where(eq(roles.id, role.id))
    .returning()
    .catch((error: unknown) => {
      // Another request took the name between the check and the update (the unique index).
      throw isUniqueViolation(error) ? nameTaken() : error;
    });
  if (!changed) throw new NotFound("Role");
  return changed;
}

/** Deletes a role nobody has (409 while users still have it: give them another role first). */
export async function deleteRole(ctx: Pick<AppContext, "db">, id: number): Promise<void> {
  const role = await changeableRole(ctx, id);
  const [held] = await ctx.db
    .select({ users: count(users.id) })
    .from(users)
    .where(eq(users.roleId, role.id));
  if (held && held.users > 0) {
    throw new AppError(
      409,
      `${held.users === 1 ? "1 user has" : `${held.users} users have`} this role: give them another role first.`,
    );
  }
  await ctx.db.delete(roles).where(eq(roles.id, role.id));
}
