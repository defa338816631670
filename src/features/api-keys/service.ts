import { desc, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { apiKeys, users } from "../../db/schema/index.ts";
import { NotFound } from "../../errors.ts";
import type { PageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { bodyId, invalidId } from "../../validation/ids.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { lastUsedIsStale } from "../auth/last-used.ts";
import { randomSecret, sha256Hex } from "../auth/secrets.ts";
import { CreateApiKeyBody, type CreateApiKeyInput, type CreateApiKeyRequest } from "./schemas.ts";

/** The prefix lets secret scanners recognise a leaked key. */
const KEY_PREFIX = "dpk_";

/** A creator, if named, must be a user. */
async function checkCreator(ctx: Pick<AppContext, "db">, creatorId: number | null) {
  if (creatorId === null) return;
  const [creator] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, creatorId));
  if (!creator) throw invalidId("creator_id");
}

/** A new key: a name, and a creator who is a user when one is named. */
export const NewApiKeyForm = form(CreateApiKeyBody, (ctx, fields) =>
  checkCreator(ctx, bodyId(fields.creator_id, "creator_id")),
);

export async function createApiKey(ctx: Pick<AppContext, "db">, input: CreateApiKeyInput) {
  await checkCreator(ctx, input.creatorId);
  const key = KEY_PREFIX + randomSecret(32);
  const [row] = await ctx.db
    .insert(apiKeys)
    .values({ name: input.name, creatorId: input.creatorId, keyHash: sha256Hex(key) })
    .returning({ id: apiKeys.id });
  if (!row) throw new Error("api key insert returned nothing");
  return { id: row.id, name: input.name, creator_id: input.creatorId, key };
}

/** A key as the admin's form asks for it: `creator_id` may come as a number or as a digit string. */
export const createApiKeyFromForm = (ctx: Pick<AppContext, "db">, body: CreateApiKeyRequest) =>
  createApiKey(ctx, { name: body.name, creatorId: bodyId(body.creator_id, "creator_id") });

/**
 * The key's identity, or null when it is unknown or deleted. Keys carry 256 random bits, so looking
 * them up by their SHA-256 through a unique index is safe and one indexed read.
 */
export async function authenticateApiKey(
  ctx: Pick<AppContext, "db">,
  raw: string | null | undefined,
): Promise<ApiKeyActor | null> {
  if (!raw || raw.length > 200) return null;
  const [row] = await ctx.db
    .select({ id: apiKeys.id, creatorId: apiKeys.creatorId, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(eq(apiKeys.keyHash, sha256Hex(raw)));
  if (!row) return null;
  if (lastUsedIsStale(row.lastUsedAt)) {
    await ctx.db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(eq(apiKeys.id, row.id));
  }
  return { id: row.id, creatorId: row.creatorId };
}

export async function deleteApiKey(ctx: Pick<AppContext, "db">, id: number): Promise<void> {
  const deleted = await ctx.db.delete(apiKeys).where(eq(apiKeys.id, id)).returning({ id: apiKeys.id });
  if (deleted.length === 0) throw new NotFound("API key");
}

/** The keys, newest first, with their creator's name; the list never shows a key (only its hash is kept). */
export async function listApiKeys(ctx: Pick<AppContext, "db">, page: PageRequest) {
  return ctx.db
    .select({ key: apiKeys, creatorName: users.name })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.creatorId))
    .orderBy(desc(apiKeys.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}
