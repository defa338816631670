import { t } from "elysia";
import { PASSWORD_MAX_LENGTH } from "../auth/passwords.ts";

export const SignInBody = t.Object(
  {
    email: t.String({ minLength: 1, maxLength: 255 }),
    // The same bound as setting a password: no need to hash megabytes to say no.
    password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
