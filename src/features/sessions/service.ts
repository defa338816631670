import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Role, roles, type Session, sessions, type User, users } from "../../db/schema/index.ts";
import { lastUsedIsStale } from "../auth/last-used.ts";
import { randomSecret, sha256Hex } from "../auth/secrets.ts";

export interface SignedIn {
  session: Session;
  user: User;
  role: Role;
  /** The expiry moved on during this lookup: the cookie should be sent again with a fresh Max-Age. */
  renewed: boolean;
}

const lifetimeMs = (ctx: Pick<AppContext, "config">) => ctx.config.sessionLifetimeHours * 3_600_000;
export const lifetimeSeconds = (ctx: Pick<AppContext, "config">) => ctx.config.sessionLifetimeHours * 3600;

/** A new session for `userId`; the token goes into the cookie and is stored only as its SHA-256. */
export async function startSession(
  ctx: Pick<AppContext, "db" | "config">,
  userId: number,
  client: { ip: string | null; userAgent: string | null },
): Promise<{ token: string; session: Session }> {
  const token = randomSecret(32);
  // A person signs in now and then: a good moment to forget their expired sessions.
  await ctx.db.delete(sessions).where(and(eq(sessions.userId, userId), lte(sessions.expiresAt, sql`now()`)));
  const [session] = await ctx.db
    .insert(sessions)
    .values({
      id: sha256Hex(token),
      userId,
      csrfToken: randomSecret(32),
      expiresAt: new Date(Date.now() + lifetimeMs(ctx)),
      ip: client.ip,
      userAgent: client.userAgent?.slice(0, 512) ?? null,
    })
    .returning();
  if (!session) throw new Error("session insert returned nothing");
  return { token, session };
}

/**
 * The live session behind a cookie's token, with its user and role; null for an unknown, revoked or
 * expired one. Sliding expiry: use moves `expires_at` on, but at most once a minute, so most requests
 * only read.
 */
export async function findSession(
  ctx: Pick<AppContext, "db" | "config">,
  token: string | null,
): Promise<SignedIn | null> {
  if (!token) return null;
  const [row] = await ctx.db
    .select()
    .from(sessions)
    .innerJoin(users, eq(sessions.userId, users.id))
    .innerJoin(roles, eq(users.roleId, roles.id))
    .where(and(eq(sessions.id, sha256Hex(token)), gt(sessions.expiresAt, sql`now()`)));
  if (!row) return null;
  let session = row.sessions;
  const renewed = lastUsedIsStale(session.lastUsedAt);
  if (renewed) {
    const now = new Date();
    const [updated] = await ctx.db
      .update(sessions)
      .set({ lastUsedAt: now, expiresAt: new Date(now.getTime() + lifetimeMs(ctx)) })
      .where(eq(sessions.id, session.id))
      .returning();
    // Signed out everywhere between the read and the write: the session is gone.
    if (!updated) return null;
    session = updated;
  }
  return { session, user: row.users, role: row.roles, renewed };
}

export async function endSession(ctx: Pick<AppContext, "db">, sessionId: string): Promise<void> {
  await ctx.db.delete(sessions).where(eq(sessions.id, sessionId));
}

/** Revokes every session of the user (every browser, this one too). Bearer tokens are not touched. */
export async function endEverySession(ctx: Pick<AppContext, "db">, userId: number): Promise<void> {
  await ctx.db.delete(sessions).where(eq(sessions.userId, userId));
}

/** Deletes every expired session (they already answer 401; this only keeps the table small). */
export async function deleteExpiredSessions(ctx: Pick<AppContext, "db">): Promise<number> {
  const deleted = await ctx.db
    .delete(sessions)
    .where(lte(sessions.expiresAt, sql`now()`))
    .returning({ id: sessions.id });
  return deleted.length;
}
