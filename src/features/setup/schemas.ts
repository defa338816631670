import { t } from "elysia";
import { Text } from "../../validation/schemas.ts";
import { NewPassword } from "../auth/passwords.ts";
import { EmailAddress } from "../users/schemas.ts";

/** The first admin, and the code `depot serve` printed (the credential for this one request). */
export const SetupBody = t.Object(
  {
    code: t.String({ maxLength: 255, description: "the code in the setup link `depot serve` printed" }),
    name: Text({ minLength: 1, maxLength: 255 }),
    email: EmailAddress,
    password: NewPassword,
  },
  { additionalProperties: false },
);
export type SetupInput = typeof SetupBody.static;
