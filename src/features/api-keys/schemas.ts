import { t } from "elysia";
import { IdString } from "../../http/ids.ts";

export const CreateApiKeyBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 255 }),
    creator_id: t.Optional(t.Union([t.Integer({ minimum: 1 }), IdString, t.Null()])),
  },
  { additionalProperties: false },
);
export type CreateApiKeyInput = { name: string; creatorId: number | null };

export const NewApiKeyJson = t.Object({
  id: t.Integer(),
  name: t.String(),
  creator_id: t.Union([t.Integer(), t.Null()]),
  key: t.String({ description: "shown only once" }),
});
