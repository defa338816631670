import { t } from "elysia";
import { Text } from "../../validation/schemas.ts";
import { NewPassword, PASSWORD_MAX_LENGTH } from "../auth/passwords.ts";

export const UpdateProfileBody = t.Object(
  { name: Text({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false },
);

/** The new password is typed twice. */
export const ChangePasswordBody = t.Object(
  {
    current_password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
    password: NewPassword,
    password_confirmation: t.String({ maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
export type ChangePasswordInput = typeof ChangePasswordBody.static;
