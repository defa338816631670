import { t } from "elysia";
import { NewPassword } from "../auth/passwords.ts";

/** No shape rules on `token`: every bad one gets the same message from the service, so nothing leaks. */
export const PasswordLinkQuery = t.Object({ token: t.Optional(t.String()) });

export const SetPasswordBody = t.Object(
  {
    token: t.String(),
    password: NewPassword,
  },
  { additionalProperties: false },
);

export const ForgotPasswordBody = t.Object(
  { email: t.String({ minLength: 1, maxLength: 255 }) },
  { additionalProperties: false },
);
