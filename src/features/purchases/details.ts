import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Purchase, productOptions, products, users } from "../../db/schema/index.ts";

/** What `?details=1` adds to each listed purchase, for a page that shows names rather than ids. */
export interface PurchaseDetails {
  product: { id: number; name: string };
  option: { id: number; name: string } | null;
  buyer: { id: number; name: string; email: string };
}

/**
 * The names behind a page of purchases: three look-ups by the page's ids, whatever the page's size.
 * The caller already sees these purchases, so it may see their product, option and buyer: an owner
 * learns who bought their product, as the license they then issue names them anyway.
 */
export async function detailsOf(
  ctx: Pick<AppContext, "db">,
  purchases: Pick<Purchase, "productId" | "optionId" | "userId">[],
): Promise<(purchase: Pick<Purchase, "productId" | "optionId" | "userId">) => PurchaseDetails> {
  const ids = <T>(pick: (purchase: (typeof purchases)[number]) => T | null) => [
    ...new Set(purchases.map(pick).filter((id): id is T => id !== null)),
  ];
  const productIds = ids((p) => p.productId);
  const optionIds = ids((p) => p.optionId);
  const userIds = ids((p) => p.userId);
  const [productRows, optionRows, userRows] = await Promise.all([
    productIds.length === 0
      ? []
      : ctx.db
          .select({ id: products.id, name: products.name })
          .from(products)
          .where(inArray(products.id, productIds)),
    optionIds.length === 0
      ? []
      : ctx.db
          .select({ id: productOptions.id, name: productOptions.name })
          .from(productOptions)
          .where(inArray(productOptions.id, optionIds)),
    userIds.length === 0
      ? []
      : ctx.db
          .select({ id: users.id, name: users.name, email: users.email })
          .from(users)
          .where(inArray(users.id, userIds)),
  ]);
  const byId = <T extends { id: number }>(rows: T[]) => new Map(rows.map((row) => [row.id, row]));
  const productById = byId(productRows);
  const optionById = byId(optionRows);
  const userById = byId(userRows);
  return (purchase) => ({
    // Purchases keep their product and buyer (foreign keys); the fallbacks only satisfy the types.
    product: productById.get(purchase.productId) ?? { id: purchase.productId, name: "" },
    option: purchase.optionId === null ? null : (optionById.get(purchase.optionId) ?? null),
    buyer: userById.get(purchase.userId) ?? { id: purchase.userId, name: "", email: "" },
  });
}
