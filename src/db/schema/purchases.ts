import { foreignKey, index, integer, numeric, pgTable } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { currencies } from "./currencies.ts";
import { orders } from "./orders.ts";
import { productOptions } from "./product-options.ts";
import { products } from "./products.ts";
import { users } from "./users.ts";

/**
 * One product bought in an order. `user_id` repeats the order's buyer so the purchase list filters
 * and the "who has benefit B" look-ups are single index scans.
 */
export const purchases = pgTable(
  "purchases",
  {
    id: id(),
    orderId: ref("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id),
    optionId: ref("option_id"),
    quantity: integer("quantity").notNull().default(1),
    unitPrice: numeric("unit_price", { precision: 12, scale: 2 }).notNull(),
    unitPriceCurrencyId: ref("unit_price_currency_id")
      .notNull()
      .references(() => currencies.id),
    originalUnitPrice: numeric("original_unit_price", { precision: 12, scale: 2 }).notNull(),
    originalCurrencyId: ref("original_currency_id")
      .notNull()
      .references(() => currencies.id),
    /** original × rate = unit price, as recorded at checkout. */
    currencyRate: numeric("currency_rate", { precision: 18, scale: 8 }).notNull().default("1"),
    ...timestamps,
  },
  (table) => [
    foreignKey({
      name: "purchases_option_of_product_fk",
      columns: [table.optionId, table.productId],
      foreignColumns: [productOptions.id, productOptions.productId],
    }),
    // The list is newest first; (filter, id) indexes serve `WHERE … ORDER BY id DESC LIMIT n` directly.
    index("purchases_user_id_id_index").on(table.userId, table.id),
    index("purchases_product_id_id_index").on(table.productId, table.id),
    // "Does user U have benefit B" and "who has benefit B" (holders of a benefit version).
    index("purchases_product_option_user_index").on(table.productId, table.optionId, table.userId),
    index("purchases_order_id_index").on(table.orderId),
  ],
);

export type Purchase = typeof purchases.$inferSelect;
