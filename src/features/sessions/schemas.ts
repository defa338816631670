import { t } from "elysia";
import { Int } from "../../validation/schemas.ts";
import { PASSWORD_MAX_LENGTH } from "../auth/passwords.ts";

export const SignInBody = t.Object(
  {
    email: t.String({ minLength: 1, maxLength: 255 }),
    // The same bound as setting a password: no need to hash megabytes to say no.
    password: t.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);

/** Who is signed in and the token the dashboard sends back in `X-CSRF-Token`. */
export const SessionJson = t.Object({
  user: t.Object({
    id: Int(),
    name: t.String(),
    email: t.String(),
    role: t.Object({ id: Int(), name: t.String(), permissions: t.Array(t.String()) }),
  }),
  csrf_token: t.String(),
});
