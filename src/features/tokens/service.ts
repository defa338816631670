import { and, desc, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { type PersonalAccessToken, personalAccessTokens, roles, users } from "../../db/schema/index.ts";
import { NotFound } from "../../errors.ts";
import type { PageRequest } from "../../page-request.ts";
import type { Actor } from "../auth/actor.ts";
import { lastUsedIsStale } from "../auth/last-used.ts";
import { effectivePermissions } from "../auth/permissions.ts";
import { randomSecret, sameDigest, sha256Hex } from "../auth/secrets.ts";
import type { CreateTokenInput } from "./schemas.ts";

/** Sanctum's plaintext format: `<token id>|<secret>`. */
const TOKEN_FORMAT = /^([1-9]\d{0,15})\|([A-Za-z0-9_-]{20,128})$/;

export async function createToken(ctx: Pick<AppContext, "db">, userId: number, input: CreateTokenInput) {
  const [user] = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, userId));
  if (!user) throw new NotFound("User");
  const secret = randomSecret(30);
  const abilities = [...new Set(input.abilities ?? ["*"])];
  const [token] = await ctx.db
    .insert(personalAccessTokens)
    .values({ userId, name: input.name, abilities, tokenHash: sha256Hex(secret) })
    .returning({ id: personalAccessTokens.id });
  if (!token) throw new Error("token insert returned nothing");
  return { id: token.id, name: input.name, abilities, token: `${token.id}|${secret}` };
}

/** The actor behind a bearer token, or null for a malformed, unknown or deleted token. */
export async function authenticateToken(
  ctx: Pick<AppContext, "db">,
  bearer: string | undefined,
): Promise<Actor | null> {
  const match = bearer ? TOKEN_FORMAT.exec(bearer) : null;
  if (!match?.[1] || !match[2]) return null;
  const id = Number(match[1]);
  const [row] = await preparedOnce(ctx.db, "token_by_id", prepareTokenById).execute({ id });
  if (!row || !sameDigest(row.personal_access_tokens.tokenHash, sha256Hex(match[2]))) return null;
  const token = row.personal_access_tokens;
  if (lastUsedIsStale(token.lastUsedAt)) {
    await ctx.db
      .update(personalAccessTokens)
      .set({ lastUsedAt: sql`now()` })
      .where(eq(personalAccessTokens.id, id));
  }
  return {
    user: row.users,
    role: row.roles,
    via: "token",
    tokenId: id,
    permissions: effectivePermissions(row.roles.permissions, token.abilities),
    unrestricted: token.abilities.includes("*"),
  };
}

/** The token with its user and role: every authenticated request reads it. */
const prepareTokenById = (db: Db) =>
  db
    .select()
    .from(personalAccessTokens)
    .innerJoin(users, eq(personalAccessTokens.userId, users.id))
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(eq(personalAccessTokens.id, sql.placeholder("id")))
    .prepare("token_by_id");

/**
 * Revokes a token: any (the admin route), or with `ownerId` only one of that user's, someone else's
 * being as unknown as a missing one.
 */
export async function deleteToken(
  ctx: Pick<AppContext, "db">,
  id: number,
  ownerId: number | null = null,
): Promise<void> {
  const deleted = await ctx.db
    .delete(personalAccessTokens)
    .where(
      and(
        eq(personalAccessTokens.id, id),
        ownerId === null ? undefined : eq(personalAccessTokens.userId, ownerId),
      ),
    )
    .returning({ id: personalAccessTokens.id });
  if (deleted.length === 0) throw new NotFound("Token");
}

/** A page of the user's own tokens, newest first (`perPage + 1` rows: `simplePage` needs to see more). */
export function listOwnTokens(
  ctx: Pick<AppContext, "db">,
  userId: number,
  page: PageRequest,
): Promise<PersonalAccessToken[]> {
  return ctx.db
    .select()
    .from(personalAccessTokens)
    .where(eq(personalAccessTokens.userId, userId))
    .orderBy(desc(personalAccessTokens.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}
