import { t } from "elysia";
import type { PersonalAccessToken } from "../../db/schema/index.ts";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import { Int, Text } from "../../validation/schemas.ts";
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

export const NewTokenJson = t.Object({
  id: Int(),
  name: t.String(),
  abilities: t.Array(t.String()),
  token: t.String({ description: "`id|secret`, shown only once" }),
});
/** What creating a token answers, the admin's and one's own alike. */
export const NewTokenData = dataOf(NewTokenJson);

/** A token as its owner sees it in a list: never the secret, which exists only in the create answer. */
export const TokenJson = t.Object({
  id: Int(),
  name: t.String(),
  abilities: t.Array(t.String()),
  last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description: "when it last authenticated a request, to the minute; null if never",
  }),
  created_at: t.String({ format: "date-time" }),
});

export const toTokenJson = (row: PersonalAccessToken): typeof TokenJson.static => ({
  id: row.id,
  name: row.name,
  abilities: row.abilities,
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

export const TokenPageJson = simplePageOf(TokenJson);
export const TokenListQuery = t.Object(PageQuery);
