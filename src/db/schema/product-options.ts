import { numeric, pgTable, text, unique } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { products } from "./products.ts";

/** The tiers a product is sold in. A purchase records the option bought. */
export const productOptions = pgTable(
  "product_options",
  {
    id: id(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    price: numeric("price", { precision: 12, scale: 2 }).notNull(),
    ...timestamps,
  },
  // Target of the composite foreign keys that keep a benefit's or purchase's option on its product.
  (table) => [unique("product_options_id_product_id_unique").on(table.id, table.productId)],
);

export type ProductOption = typeof productOptions.$inferSelect;
