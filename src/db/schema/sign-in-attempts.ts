import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * Password attempts counted per key (`sign-in:user:7`, `sign-in:email:…`, `sign-in:ip:…`, `password:user:7`) in fixed
 * one-minute windows. In the database, so every instance serving the dashboard counts together.
 */
export const signInAttempts = pgTable(
  "sign_in_attempts",
  {
    key: text("key").primaryKey(),
    count: integer("count").notNull(),
    /** When this window ends and the key starts afresh. */
    resetAt: timestamptz("reset_at").notNull(),
  },
  (table) => [index("sign_in_attempts_reset_at_index").on(table.resetAt)],
);
