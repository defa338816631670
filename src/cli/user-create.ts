import { t } from "elysia";
import { hashPassword, NewPassword } from "../features/auth/passwords.ts";
import { CreateUserBody } from "../features/users/schemas.ts";
import { createUser } from "../features/users/service.ts";
import { assertValid } from "../validation/messages.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult, requireString } from "./command.ts";
import { readNewPassword } from "./password-input.ts";

/** The API's new user, and a dashboard password or none. */
const CreateUserInput = t.Object(
  { ...CreateUserBody.properties, password: t.Union([NewPassword, t.Null()]) },
  { additionalProperties: false },
);

/** The password travels to the server in clear over its owner-only socket, and is hashed there. */
export const createUserAction = adminAction(
  "user:create",
  CreateUserInput,
  async (runtime, { password, ...fields }) => {
    const passwordHash = password === null ? null : await hashPassword(password);
    const { user, role } = await createUser(runtime, fields, passwordHash);
    return { id: user.id, name: user.name, email: user.email, role: role.name };
  },
);

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
    // Checked before the password is asked for, too.
    assertValid(CreateUserBody, input);
    const password = values["password-stdin"] === true ? await readNewPassword() : null;
    const result = await performAdmin(config, createUserAction, { ...input, password });
    printResult(
      values.json === true,
      result,
      `Created user ${result.id} <${result.email}> with role ${result.role}.`,
    );
    return 0;
  },
};
