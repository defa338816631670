import { t } from "elysia";
import type { Role } from "../../db/schema/index.ts";
import { Int } from "../../validation/schemas.ts";
import { RoleJson, toRoleJson } from "../users/json.ts";

/** A role in the admin list: the role, and how many users have it. */
export const RoleWithCountJson = t.Composite([RoleJson, t.Object({ users_count: Int() })]);

export const toRoleWithCountJson = ({ role, users }: { role: Role; users: number }) => ({
  ...toRoleJson(role),
  users_count: users,
});
