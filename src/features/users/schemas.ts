import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { Text } from "../../validation/schemas.ts";

/** An e-mail address as every form takes one (a new user's, setup's, `depot product:create --owner`). */
export const EmailAddress = t.String({ format: "email", maxLength: 255 });

export const CreateUserBody = t.Object(
  {
    name: Text({ minLength: 1, maxLength: 255 }),
    email: EmailAddress,
    role: t.Optional(
      t.String({ minLength: 1, maxLength: 64, description: "admin, vendor, customer or an added role" }),
    ),
  },
  { additionalProperties: false },
);
export type CreateUserInput = typeof CreateUserBody.static;

/** The admin list's filters; strings so an empty `?role=` from a form filters nothing. */
export const UserListQuery = t.Object({
  search: t.Optional(t.String({ maxLength: 255, description: "part of the name or e-mail, any case" })),
  role: t.Optional(t.String({ maxLength: 64, description: "only users with this role (its name)" })),
  ...PageQuery,
});

export const UpdateUserBody = t.Object(
  {
    name: t.Optional(Text({ minLength: 1, maxLength: 255 })),
    role: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "the new role's name" })),
  },
  { additionalProperties: false },
);
export type UpdateUserInput = typeof UpdateUserBody.static;
