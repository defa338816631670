import { index, numeric, pgTable } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { currencies } from "./currencies.ts";
import { users } from "./users.ts";

/** A checkout: one or more purchases paid together. */
export const orders = pgTable(
  "orders",
  {
    id: id(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    currencyId: ref("currency_id")
      .notNull()
      .references(() => currencies.id),
    total: numeric("total", { precision: 14, scale: 2 }).notNull(),
    ...timestamps,
  },
  (table) => [index("orders_user_id_index").on(table.userId)],
);

export type Order = typeof orders.$inferSelect;
