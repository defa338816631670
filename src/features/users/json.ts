import { t } from "elysia";
import type { Role } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import { Int } from "../../validation/schemas.ts";
import type { UserWithRole } from "./service.ts";

export const RoleJson = t.Object({
  id: Int(),
  name: t.String(),
  permissions: t.Array(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const toRoleJson = (role: Role) => ({
  id: role.id,
  name: role.name,
  permissions: role.permissions,
  created_at: role.createdAt.toISOString(),
  updated_at: role.updatedAt.toISOString(),
});

export const UserJson = t.Object({
  id: Int(),
  name: t.String(),
  email: t.String(),
  role: RoleJson,
});

export const toUserJson = ({ user, role }: UserWithRole) => ({
  id: user.id,
  name: user.name,
  email: user.email,
  role: toRoleJson(role),
});

export const UserPageJson = simplePageOf(UserJson);

/** A user as the user and profile routes answer one: `{ data: UserJson }`. */
export const UserData = dataOf(UserJson);
export const toUserData = (user: UserWithRole) => ({ data: toUserJson(user) });
