import { sql } from "drizzle-orm";
import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { roles } from "./roles.ts";

export const users = pgTable(
  "users",
  {
    id: id(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    /** argon2id (PHC string) for dashboard sign-in; null: this user signs in with tokens only. */
    passwordHash: text("password_hash"),
    roleId: ref("role_id")
      .notNull()
      .references(() => roles.id),
    ...timestamps,
  },
  // E-mail addresses are unique regardless of case, as people type them.
  (table) => [uniqueIndex("users_email_lower_unique").on(sql`lower(${table.email})`)],
);

export type User = typeof users.$inferSelect;
