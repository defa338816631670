import { t } from "elysia";
import { Text } from "../../validation/schemas.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../auth/passwords.ts";

/** The first admin, and the code `depot serve` printed (the credential for this one request). */
export const SetupBody = t.Object(
  {
    code: t.String({ maxLength: 255, description: "the code in the setup link `depot serve` printed" }),
    name: Text({ minLength: 1, maxLength: 255 }),
    email: t.String({ format: "email", maxLength: 255 }),
    password: t.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
  },
  { additionalProperties: false },
);
export type SetupInput = typeof SetupBody.static;
