import { t } from "elysia";
import { PageQuery } from "../../http/pagination.ts";
import { Text } from "../../validation/schemas.ts";
import { PERMISSIONS } from "../auth/permissions.ts";

const Ability = t.Union([t.Literal("*"), ...PERMISSIONS.map((p) => t.Literal(p))], {
  description: "A permission this token may use; `*` for all of the role's",
});

export const CreateTokenBody = t.Object(
  {
    name: Text({ minLength: 1, maxLength: 255 }),
    abilities: t.Optional(t.Array(Ability, { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type CreateTokenInput = typeof CreateTokenBody.static;

export const TokenListQuery = t.Object(PageQuery);
