import { pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { emailKeyOf } from "../email-key.ts";
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
  // E-mail addresses are unique regardless of case, as people type them (db/email-key.ts).
  (table) => [uniqueIndex("users_email_key_unique").on(emailKeyOf(table.email))],
);

export type User = typeof users.$inferSelect;
