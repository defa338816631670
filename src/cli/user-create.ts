import { hashPassword } from "../features/auth/passwords.ts";
import { CreateUserBody } from "../features/users/schemas.ts";
import { createUser } from "../features/users/service.ts";
import { assertValid } from "../validation/messages.ts";
import { type Command, printResult, requireString, withRuntime } from "./command.ts";
import { readNewPassword } from "./password-input.ts";

export const userCreateCommand: Command = {
  name: "user:create",
  summary: "create a user",
  usage: "depot user:create --name N --email E [--role admin|vendor|customer] [--password-stdin] [--json]",
  details:
    "--password-stdin reads the user's dashboard password from the first line of stdin (8 to 1024 characters).",
  options: {
    name: { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    "password-stdin": { type: "boolean" },
    json: { type: "boolean" },
  },
  async run(config, values) {
    const input = {
      name: requireString(values, "name"),
      email: requireString(values, "email"),
      role: typeof values.role === "string" ? values.role : "customer",
    };
    assertValid(CreateUserBody, input);
    const password = values["password-stdin"] === true ? await readNewPassword() : null;
    const passwordHash = password === null ? null : await hashPassword(password);
    const { user, role } = await withRuntime(config, (runtime) => createUser(runtime, input, passwordHash));
    const result = { id: user.id, name: user.name, email: user.email, role: role.name };
    printResult(
      values.json === true,
      result,
      `Created user ${user.id} <${user.email}> with role ${role.name}.`,
    );
    return 0;
  },
};
