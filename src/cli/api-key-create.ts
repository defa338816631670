import { createApiKey } from "../features/api-keys/service.ts";
import { toId } from "../validation/ids.ts";
import { type Command, printResult, UsageError, withRuntime } from "./command.ts";

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
    const key = await withRuntime(config, (runtime) => createApiKey(runtime, { name, creatorId }));
    const scope = creatorId === null ? "all licenses" : `licenses created by user ${creatorId}`;
    printResult(
      values.json === true,
      { id: key.id, key: key.key, creator_id: key.creator_id },
      `API key ${key.id} for ${scope}. Shown only once:\n${key.key}`,
    );
    return 0;
  },
};
