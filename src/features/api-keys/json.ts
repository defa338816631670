import { t } from "elysia";
import type { ApiKey } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";

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

export const toApiKeyJson = ({ key, creatorName }: { key: ApiKey; creatorName: string | null }) => ({
  id: key.id,
  name: key.name,
  creator_id: key.creatorId,
  creator_name: creatorName,
  created_at: key.createdAt.toISOString(),
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
});

export const ApiKeyPageJson = simplePageOf(ApiKeyJson);
