import { bigint, date, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ref } from "./columns.ts";
import { products } from "./products.ts";

/**
 * A product's usage, one row a day per series and what the series is counted by: validations by
 * license and code, activations and deactivations by license, alive machines by license (a gauge: the
 * day's highest count), downloads by version and file. Counted in memory and added in batches
 * (features/stats/usage-counter.ts), as update checks are; kept STATS_RETENTION_DAYS.
 *
 * The license is kept as text without a foreign key: deleting a license keeps the product's history,
 * and '' stands for "no license" (a key that matched nothing, a download).
 */
export const usageDays = pgTable(
  "usage_days",
  {
    day: date("day", { mode: "string" }).notNull(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    /** `validations`, `activations`, `deactivations`, `machines` or `downloads`. */
    series: text("series").notNull(),
    licenseId: text("license_id").notNull().default(""),
    /** The version's name (downloads), else ''. */
    version: text("version").notNull().default(""),
    /** The validation's code, or the downloaded file's name; else ''. */
    detail: text("detail").notNull().default(""),
    count: bigint("count", { mode: "number" }).notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.productId, table.day, table.series, table.licenseId, table.version, table.detail],
    }),
  ],
);

export type UsageDay = typeof usageDays.$inferSelect;
