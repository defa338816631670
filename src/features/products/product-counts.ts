// What the dashboard's product table shows beside each product (`GET /api/products?counts=1`): its
// versions, its latest, its licenses and its validations of the last 7 days. Asked for only by the
// table, so the plain list (and the legacy clients reading it) pays nothing for them.
import { inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { DAY_MS } from "../../daily-limit.ts";
import { products } from "../../db/schema/index.ts";
import type { ProductCounts } from "./json.ts";

/** The counts of each of `ids`, by id; one query whatever the page's length. */
export async function productCounts(
  ctx: Pick<AppContext, "db">,
  ids: number[],
  now = new Date(),
): Promise<Map<number, ProductCounts>> {
  if (ids.length === 0) return new Map();
  const since = new Date(now.getTime() - 6 * DAY_MS).toISOString().slice(0, 10);
  // Spelt out as in listProducts: inside a selected sql`` drizzle leaves columns unqualified.
  const rows = await ctx.db
    .select({
      id: products.id,
      versions: sql<number>`(select count(*) from versions v where v.product_id = products.id)`.mapWith(
        Number,
      ),
      latest: sql<string | null>`(select v.version_number from versions v
        where v.product_id = products.id and v.purchase_benefit_id is null and v.status = 'published'
        order by v.id desc limit 1)`,
      licenses: sql<number>`(select count(*) from licenses l where l.product_id = products.id)`.mapWith(
        Number,
      ),
      validations: sql<number>`(select coalesce(sum(u.count), 0) from usage_days u
        where u.product_id = products.id and u.series = 'validations' and u.day >= ${since}::date)`.mapWith(
        Number,
      ),
    })
    .from(products)
    .where(inArray(products.id, ids));
  return new Map(
    rows.map((row) => [
      row.id,
      {
        versions: row.versions,
        latest_version: row.latest,
        licenses: row.licenses,
        validations_7d: row.validations,
      },
    ]),
  );
}
