import { t } from "elysia";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/passwords.ts";

/** No shape rules on `token`: every bad one gets the same message from the service, so nothing leaks. */
export const PasswordLinkQuery = t.Object({ token: t.Optional(t.String()) });

export const SetPasswordBody = t.Object(
  {
    token: t.String(),
    password: t.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
