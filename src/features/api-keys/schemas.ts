import { t } from "elysia";
import { IdString } from "../../validation/ids.ts";
import { Int } from "../../validation/schemas.ts";

export const CreateApiKeyBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255 }),
    creator_id: t.Optional(t.Union([Int({ minimum: 1 }), IdString, t.Null()])),
  },
  { additionalProperties: false },
);
export type CreateApiKeyInput = { name: string; creatorId: number | null };

export const NewApiKeyJson = t.Object({
  id: Int(),
  name: t.String(),
  creator_id: t.Union([Int(), t.Null()]),
  key: t.String({ description: "shown only once" }),
});
