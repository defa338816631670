import { t } from "elysia";
import { isGrant, PERMISSIONS } from "../features/auth/permissions.ts";
import { CreateTokenBody } from "../features/tokens/schemas.ts";
import { createToken } from "../features/tokens/service.ts";
import { toId } from "../validation/ids.ts";
import { assertValid } from "../validation/messages.ts";
import { Int } from "../validation/schemas.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult, requireString, UsageError } from "./command.ts";

export const createTokenAction = adminAction(
  "token:create",
  t.Object({ ...CreateTokenBody.properties, userId: Int({ minimum: 1 }) }, { additionalProperties: false }),
  async (runtime, { userId, ...input }) => {
    const token = await createToken(runtime, userId, input);
    return { id: token.id, token: token.token, abilities: token.abilities };
  },
);

export const tokenCreateCommand: Command = {
  name: "token:create",
  summary: "create a personal access token for a user",
  usage: "depot token:create --user ID [--name N] [--ability A ...] [--json]",
  details: `--ability is one of ${["*", ...PERMISSIONS].join(", ")}; repeat it or separate with commas.`,
  options: {
    user: { type: "string" },
    name: { type: "string" },
    ability: { type: "string", multiple: true },
    json: { type: "boolean" },
  },
  async run(config, values) {
    const abilities = (values.ability as string[] | undefined)?.flatMap((a) => a.split(",")).filter(Boolean);
    const unknown = abilities?.find((ability) => !isGrant(ability));
    if (unknown !== undefined) {
      throw new UsageError(`unknown ability "${unknown}" (valid: ${["*", ...PERMISSIONS].join(", ")})`);
    }
    const userId = toId(requireString(values, "user"));
    if (userId === null) throw new UsageError("--user must be a user id");
    const input = { name: typeof values.name === "string" ? values.name : "cli", abilities };
    assertValid(CreateTokenBody, input);
    const token = await performAdmin(config, createTokenAction, { ...input, userId });
    printResult(
      values.json === true,
      { id: token.id, token: token.token },
      `Token ${token.id} for user ${userId} (abilities: ${token.abilities.join(", ")}). Shown only once:\n${token.token}`,
    );
    return 0;
  },
};
