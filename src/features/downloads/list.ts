import { and, asc, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenses, products, purchaseBenefits } from "../../db/schema/index.ts";
import { isHolder, liveLicense } from "../licenses/holders.ts";
import { toVersionJson } from "../versions/json.ts";
import type { VersionRow } from "../versions/rows.ts";
import { latestVersionsOf } from "../versions/service.ts";

/**
 * What `userId` may download, by product name: every product they hold a live license for (hidden,
 * disabled or deleted ones too, as downloads allow, access.ts), with its newest release
 * and, of its benefits, those the holder rule grants them (a purchase with the benefit's option).
 */
export async function listDownloads(ctx: Pick<AppContext, "db" | "config">, userId: number) {
  const held = await ctx.db
    .selectDistinct({ id: products.id, name: products.name })
    .from(licenses)
    .innerJoin(products, eq(products.id, licenses.productId))
    .where(and(eq(licenses.userId, userId), liveLicense()))
    .orderBy(asc(products.name), asc(products.id));
  const ids = held.map((product) => product.id);
  const benefits =
    ids.length === 0
      ? []
      : await ctx.db
          .select()
          .from(purchaseBenefits)
          .where(inArray(purchaseBenefits.productId, ids))
          .orderBy(asc(purchaseBenefits.name), asc(purchaseBenefits.id));
  // The one holder rule per benefit (few per product), rather than a second copy of it in SQL here.
  const granted: typeof benefits = [];
  for (const benefit of benefits) {
    if (await isHolder(ctx, userId, benefit.productId, benefit.optionId)) granted.push(benefit);
  }
  const latest = await latestVersionsOf(ctx, ids);
  const json = (row: VersionRow | undefined) => (row ? toVersionJson(row, ctx.config.appUrl) : null);
  const newest = (productId: number, benefitId: number | null) =>
    json(
      latest.find(
        (row) => row.version.productId === productId && row.version.purchaseBenefitId === benefitId,
      ),
    );
  return held.map((product) => ({
    product,
    latest: newest(product.id, null),
    benefits: granted
      .filter((benefit) => benefit.productId === product.id)
      .map((benefit) => ({ id: benefit.id, name: benefit.name, latest: newest(product.id, benefit.id) })),
  }));
}
