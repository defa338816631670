import { t } from "elysia";
import type { Role } from "../../db/schema/index.ts";
import { Int } from "../../validation/schemas.ts";
import { PERMISSIONS } from "../auth/permissions.ts";
import { toRoleJson } from "../users/json.ts";
import { RoleJson } from "../users/schemas.ts";

export const CreateRoleBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9_-]*$" }),
    permissions: t.Array(t.Union(PERMISSIONS.map((p) => t.Literal(p))), {
      uniqueItems: true,
      description: `any of ${PERMISSIONS.join(", ")}`,
    }),
  },
  { additionalProperties: false },
);
export type CreateRoleInput = typeof CreateRoleBody.static;

/** A role in the admin list: the role, and how many users have it. */
export const RoleWithCountJson = t.Composite([RoleJson, t.Object({ users_count: Int() })]);

export const toRoleWithCountJson = ({ role, users }: { role: Role; users: number }) => ({
  ...toRoleJson(role),
  users_count: users,
});
