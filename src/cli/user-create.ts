import { CreateUserBody } from "../features/users/schemas.ts";
import { createUser } from "../features/users/service.ts";
import { assertValid } from "../validation/messages.ts";
import { type Command, printResult, requireString, withRuntime } from "./command.ts";

export const userCreateCommand: Command = {
  name: "user:create",
  summary: "create a user",
  usage: "depot user:create --name N --email E [--role admin|vendor|customer] [--json]",
  options: {
    name: { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    json: { type: "boolean" },
  },
  async run(config, values) {
    const input = {
      name: requireString(values, "name"),
      email: requireString(values, "email"),
      role: typeof values.role === "string" ? values.role : "customer",
    };
    assertValid(CreateUserBody, input);
    const { user, role } = await withRuntime(config, (runtime) => createUser(runtime, input));
    const result = { id: user.id, name: user.name, email: user.email, role: role.name };
    printResult(
      values.json === true,
      result,
      `Created user ${user.id} <${user.email}> with role ${role.name}.`,
    );
    return 0;
  },
};
