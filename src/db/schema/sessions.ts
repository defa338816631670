import { index, pgTable, text } from "drizzle-orm/pg-core";
import { ref, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/**
 * Dashboard sign-in sessions, kept server-side so they can be revoked. The browser holds a random
 * token in the `depot_session` cookie; `id` is its SHA-256, so a leaked table does not sign anyone in.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Sent back in `X-CSRF-Token` on state-changing requests made with this session. */
    csrfToken: text("csrf_token").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    lastUsedAt: timestamptz("last_used_at").notNull().defaultNow(),
    expiresAt: timestamptz("expires_at").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
  },
  (table) => [index("sessions_user_id_index").on(table.userId)],
);

export type Session = typeof sessions.$inferSelect;
