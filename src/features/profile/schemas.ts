import { t } from "elysia";
import { Text } from "../../validation/schemas.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/passwords.ts";

export const UpdateProfileBody = t.Object(
  { name: Text({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false },
);

/** The new password's rules are set-password's (password-links/schemas.ts); it is typed twice. */
export const ChangePasswordBody = t.Object(
  {
    current_password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
    password: t.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
    password_confirmation: t.String({ maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
export type ChangePasswordInput = typeof ChangePasswordBody.static;
