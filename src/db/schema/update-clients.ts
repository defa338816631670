import { date, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ref } from "./columns.ts";
import { products } from "./products.ts";

/**
 * Which version each updater client ran on a day, where its feed says so: the source of version
 * adoption, which counts clients rather than polls (one polling hourly weighs what one polling daily
 * does). A client is its rollout cohort (the `x-user-staging-id`, else the license, else the address),
 * kept only as a hash. Written in batches with update_checks; kept STATS_RETENTION_DAYS.
 */
export const updateClients = pgTable(
  "update_clients",
  {
    day: date("day", { mode: "string" }).notNull(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    /** A SHA-256 of the cohort key, hex, first 32 characters. */
    client: text("client").notNull(),
    /** The version the client last reported that day (unknown names as `(other)`). */
    currentVersion: text("current_version").notNull(),
  },
  (table) => [primaryKey({ columns: [table.productId, table.day, table.client] })],
);
