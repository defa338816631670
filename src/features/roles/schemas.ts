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
