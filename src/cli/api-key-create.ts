import { t } from "elysia";
import { CreateApiKeyBody } from "../features/api-keys/schemas.ts";
import { createApiKey } from "../features/api-keys/service.ts";
import { toId } from "../validation/ids.ts";
import { Int } from "../validation/schemas.ts";
import { adminAction, performAdmin } from "./admin-action.ts";
import { type Command, printResult, UsageError } from "./command.ts";

export const createApiKeyAction = adminAction(
  "api-key:create",
  t.Object(
    { name: CreateApiKeyBody.properties.name, creatorId: t.Union([Int({ minimum: 1 }), t.Null()]) },
    { additionalProperties: false },
  ),
  async (runtime, input) => {
    const key = await createApiKey(runtime, input);
    return { id: key.id, key: key.key, creator_id: key.creator_id };
  },
);

export const apiKeyCreateCommand: Command = {
  name: "api-key:create",
  summary: "create a license API key (x-api-key)",
  usage: "depot api-key:create [--creator USER_ID] [--name N] [--json]",
  options: { creator: { type: "string" }, name: { type: "string" }, json: { type: "boolean" } },
  async run(config, values) {
    const creatorId = typeof values.creator === "string" ? toId(values.creator) : null;
    if (typeof values.creator === "string" && creatorId === null)
      throw new UsageError("--creator must be a user id");
    const name = typeof values.name === "string" && values.name !== "" ? values.name : "cli";
    const key = await performAdmin(config, createApiKeyAction, { name, creatorId });
    const scope = creatorId === null ? "all licenses" : `licenses created by user ${creatorId}`;
    printResult(values.json === true, key, `API key ${key.id} for ${scope}. Shown only once:\n${key.key}`);
    return 0;
  },
};
