import { t } from "elysia";
import type { PersonalAccessToken } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import { Int } from "../../validation/schemas.ts";

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
