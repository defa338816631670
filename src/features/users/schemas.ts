import { t } from "elysia";
import { Int } from "../../validation/schemas.ts";

export const CreateUserBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255 }),
    email: t.String({ format: "email", maxLength: 255 }),
    role: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: "admin, vendor, customer or an added role" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateUserInput = typeof CreateUserBody.static;

export const RoleJson = t.Object({
  id: Int(),
  name: t.String(),
  permissions: t.Array(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const UserJson = t.Object({
  id: Int(),
  name: t.String(),
  email: t.String(),
  role: RoleJson,
});
