import { AppError } from "../errors.ts";
import { hashPassword } from "../features/auth/passwords.ts";
import { setPassword } from "../features/users/service.ts";
import { type Command, requireString, withRuntime } from "./command.ts";
import { readNewPassword } from "./password-input.ts";

export const userPasswordCommand: Command = {
  name: "user:password",
  summary: "set a user's dashboard password (read from stdin)",
  usage: "depot user:password --email E",
  details:
    'The new password is the first line of stdin (8 to 1024 characters): echo "$PW" | depot user:password --email E',
  options: { email: { type: "string" } },
  async run(config, values) {
    const email = requireString(values, "email");
    const passwordHash = await hashPassword(await readNewPassword());
    const found = await withRuntime(config, (runtime) => setPassword(runtime, email, passwordHash));
    if (!found) throw new AppError(404, `No user has the email ${email}.`);
    process.stdout.write(`Set the password of <${email}>.\n`);
    return 0;
  },
};
