import type { AppContext } from "../../context.ts";
import { type Role, roles } from "../../db/schema/index.ts";
import { Invalid } from "../../http/errors.ts";
import type { CreateRoleInput } from "./schemas.ts";

/** Adds a role beside the seeded admin, vendor and customer. */
export async function createRole(ctx: Pick<AppContext, "db">, input: CreateRoleInput): Promise<Role> {
  const [role] = await ctx.db
    .insert(roles)
    .values({ name: input.name, permissions: input.permissions })
    .onConflictDoNothing({ target: roles.name })
    .returning();
  if (!role) throw new Invalid({ name: ["The name has already been taken."] });
  return role;
}
