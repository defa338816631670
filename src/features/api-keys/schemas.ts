import { t } from "elysia";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { IdString } from "../../validation/ids.ts";
import { Int, Text } from "../../validation/schemas.ts";

export const CreateApiKeyBody = t.Object(
  {
    name: Text({ minLength: 1, maxLength: 255 }),
    creator_id: t.Optional(t.Union([Int({ minimum: 1 }), IdString, t.Null()])),
  },
  { additionalProperties: false },
);
export type CreateApiKeyRequest = typeof CreateApiKeyBody.static;
export type CreateApiKeyInput = { name: string; creatorId: number | null };

export const NewApiKeyJson = t.Object({
  id: Int(),
  name: t.String(),
  creator_id: t.Union([Int(), t.Null()]),
  key: t.String({ description: "shown only once" }),
});

/** A key as the admin list shows it: never the key, which only its hash stays of. */
export const ApiKeyJson = t.Object({
  id: Int(),
  name: t.String(),
  creator_id: t.Union([Int(), t.Null()]),
  creator_name: t.Union([t.String(), t.Null()], { description: "the creator's name, for the list" }),
  created_at: t.String({ format: "date-time" }),
  last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
});
export const ApiKeyPageJson = simplePageOf(ApiKeyJson);
export const ApiKeyListQuery = t.Object(PageQuery);
