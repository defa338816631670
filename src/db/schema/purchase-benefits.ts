import { foreignKey, index, pgTable, text } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { productOptions } from "./product-options.ts";
import { products } from "./products.ts";

/** What an option includes. A user has benefit B when they bought B's product with B's option. */
export const purchaseBenefits = pgTable(
  "purchase_benefits",
  {
    id: id(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    optionId: ref("option_id").notNull(),
    name: text("name").notNull(),
    ...timestamps,
  },
  (table) => [
    // The option must be one of this product's options, enforced by the database as well.
    foreignKey({
      name: "purchase_benefits_option_of_product_fk",
      columns: [table.optionId, table.productId],
      foreignColumns: [productOptions.id, productOptions.productId],
    }).onDelete("cascade"),
    index("purchase_benefits_product_id_index").on(table.productId),
  ],
);

export type PurchaseBenefit = typeof purchaseBenefits.$inferSelect;
