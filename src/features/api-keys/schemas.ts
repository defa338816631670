import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
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

export const ApiKeyListQuery = t.Object(PageQuery);
