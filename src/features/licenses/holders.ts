import { and, eq, gt, isNull, or, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenses, purchases } from "../../db/schema/index.ts";

/** A license that still grants anything: not revoked, not expired. */
export const liveLicense = (): SQL =>
  and(isNull(licenses.revokedAt), or(isNull(licenses.expires), gt(licenses.expires, sql`now()`))) as SQL;

/**
 * The holder rule, written once as a condition on a `licenses` row: a live license (not revoked, not
 * expired) for the product and, for a version of a benefit, a purchase of the product with the
 * benefit's option by the license's owner. The fan-out's INSERT … SELECT, `isHolder` and downloads by
 * license key all compose it.
 */
export function holdsProduct(productId: number, optionId: number | null): SQL {
  return and(
    eq(licenses.productId, productId),
    liveLicense(),
    optionId === null
      ? undefined
      : sql`EXISTS (SELECT 1 FROM ${purchases}
          WHERE ${purchases.userId} = ${licenses.userId}
            AND ${purchases.productId} = ${licenses.productId}
            AND ${purchases.optionId} = ${optionId})`,
  ) as SQL;
}

/** Whether `userId` holds `productId` (for a benefit version: with the benefit's option). */
export async function isHolder(
  ctx: Pick<AppContext, "db">,
  userId: number,
  productId: number,
  optionId: number | null,
): Promise<boolean> {
  const [license] = await ctx.db
    .select({ id: licenses.id })
    .from(licenses)
    .where(and(eq(licenses.userId, userId), holdsProduct(productId, optionId)))
    .limit(1);
  return license !== undefined;
}

/** The owner of the license with `key`, if that license makes them a holder (else null). */
export async function holderByKey(
  ctx: Pick<AppContext, "db">,
  key: string,
  productId: number,
  optionId: number | null,
): Promise<number | null> {
  const [license] = await ctx.db
    .select({ userId: licenses.userId })
    .from(licenses)
    .where(and(eq(licenses.key, key), holdsProduct(productId, optionId)))
    .limit(1);
  return license?.userId ?? null;
}
