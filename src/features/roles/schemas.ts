import { t } from "elysia";
import { PERMISSIONS } from "../auth/permissions.ts";

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

/** A role's new name and/or permissions; what is left out stays. */
export const UpdateRoleBody = t.Object(
  {
    name: t.Optional(CreateRoleBody.properties.name),
    permissions: t.Optional(CreateRoleBody.properties.permissions),
  },
  { additionalProperties: false },
);
export type UpdateRoleInput = typeof UpdateRoleBody.static;
