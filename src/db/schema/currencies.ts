import { pgTable, smallint, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./columns.ts";

/** ISO 4217 currencies prices are recorded in; seeded with USD, EUR and GBP by a migration. */
export const currencies = pgTable("currencies", {
  id: id(),
  code: text("code").notNull().unique(),
  name: text("name").notNull(),
  symbol: text("symbol").notNull(),
  decimals: smallint("decimals").notNull().default(2),
  ...timestamps,
});

export type Currency = typeof currencies.$inferSelect;
