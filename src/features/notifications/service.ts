import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Notification, notifications } from "../../db/schema/index.ts";
import { NotFound } from "../../errors.ts";
import type { PageRequest } from "../../page-request.ts";

/** The user's own notifications, newest first. */
export function listNotifications(
  ctx: Pick<AppContext, "db">,
  userId: number,
  unreadOnly: boolean,
  page: PageRequest,
): Promise<Notification[]> {
  return ctx.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), unreadOnly ? isNull(notifications.readAt) : undefined))
    .orderBy(desc(notifications.createdAt), desc(notifications.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}

/** Marks one of the user's notifications read; someone else's is as unknown as a missing one. */
export async function markRead(
  ctx: Pick<AppContext, "db">,
  userId: number,
  id: string,
): Promise<Notification> {
  const [row] = await ctx.db
    .update(notifications)
    .set({ readAt: sql`coalesce(${notifications.readAt}, now())` })
    .where(and(eq(notifications.id, id), eq(notifications.userId, userId)))
    .returning();
  if (!row) throw new NotFound("Notification");
  return row;
}

export async function markAllRead(ctx: Pick<AppContext, "db">, userId: number): Promise<number> {
  const rows = await ctx.db
    .update(notifications)
    .set({ readAt: sql`now()` })
    .where(and(eq(notifications.userId, userId), isNull(notifications.readAt)))
    .returning({ id: notifications.id });
  return rows.length;
}
