import { and, eq, gt, isNull, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenses, purchases } from "../../db/schema/index.ts";

/** A live license: not revoked and not expired. */
export const isLive = () =>
  and(isNull(licenses.revokedAt), or(isNull(licenses.expires), gt(licenses.expires, sql`now()`)));

/**
 * Whether `userId` holds `productId`: a live license for it, and — for a benefit — a purchase of the
 * product with the benefit's option.
 */
export async function isHolder(
  ctx: Pick<AppContext, "db">,
  userId: number,
  productId: number,
  benefit: { optionId: number } | null,
): Promise<boolean> {
  const [license] = await ctx.db
    .select({ id: licenses.id })
    .from(licenses)
    .where(and(eq(licenses.userId, userId), eq(licenses.productId, productId), isLive()))
    .limit(1);
  if (!license) return false;
  return benefit === null || hasBenefit(ctx, userId, productId, benefit.optionId);
}

export async function hasBenefit(
  ctx: Pick<AppContext, "db">,
  userId: number,
  productId: number,
  optionId: number,
) {
  const [purchase] = await ctx.db
    .select({ id: purchases.id })
    .from(purchases)
    .where(
      and(eq(purchases.userId, userId), eq(purchases.productId, productId), eq(purchases.optionId, optionId)),
    )
    .limit(1);
  return purchase !== undefined;
}
