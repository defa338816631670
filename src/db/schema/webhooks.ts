import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/**
 * A user's endpoint for events. The signing secret is not stored: it is derived from APP_KEY and
 * this row's random `secret_salt`, so a copy of the database alone cannot forge deliveries.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    id: id(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    secretSalt: text("secret_salt").notNull(),
    /** Set when the endpoint answered 410 Gone: nothing more is sent to it. */
    disabledAt: timestamptz("disabled_at"),
    ...timestamps,
  },
  (table) => [index("webhooks_user_id_index").on(table.userId)],
);

export type Webhook = typeof webhooks.$inferSelect;
