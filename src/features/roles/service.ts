import { asc, count, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Role, roles, users } from "../../db/schema/index.ts";
import { Invalid } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { CreateRoleBody, type CreateRoleInput } from "./schemas.ts";

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
