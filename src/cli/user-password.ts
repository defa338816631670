import { t } from "elysia";
import { AppError } from "../errors.ts";
import { hashPassword, NewPassword } from "../features/auth/passwords.ts";
import { EmailAddress } from "../features/users/schemas.ts";
import { setPassword } from "../features/users/service.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, requireString } from "./command.ts";
import { readNewPassword } from "./password-input.ts";

export const setPasswordAction = adminAction(
  "user:password",
  t.Object({ email: EmailAddress, password: NewPassword }, { additionalProperties: false }),
  async (runtime, input) => {
    const found = await setPassword(runtime, input.email, await hashPassword(input.password));
    if (!found) throw new AppError(404, `No user has the email ${input.email}.`);
    return { email: input.email };
  },
);

export const userPasswordCommand: Command = {
  name: "user:password",
  summary: "set a user's dashboard password (read from stdin)",
  usage: "depot user:password --email E",
  details:
    'The new password is the first line of stdin (8 to 1024 characters): echo "$PW" | depot user:password --email E',
  options: { email: { type: "string" } },
  async run(config, values) {
    const email = requireString(values, "email");
    const password = await readNewPassword();
    await performAdmin(config, setPasswordAction, { email, password });
    process.stdout.write(`Set the password of <${email}>.\n`);
    return 0;
  },
};
