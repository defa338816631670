import type { Role } from "../../db/schema/index.ts";
import { dataOf } from "../../http/schemas.ts";
import { UserJson } from "./schemas.ts";
import type { UserWithRole } from "./service.ts";

// The wire mappers of users and roles; their shapes stay in schemas.ts, which the dashboard shares.

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

/** A user as the user and profile routes answer one: `{ data: UserJson }`. */
export const UserData = dataOf(UserJson);
export const toUserData = (user: UserWithRole) => ({ data: toUserJson(user) });
