import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/** Sanctum-style tokens: the client holds `id|secret`, we keep only SHA-256(secret). */
export const personalAccessTokens = pgTable(
  "personal_access_tokens",
  {
    id: id(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** Permissions this token may use, intersected with the role's; ["*"] means all of the role's. */
    abilities: jsonb("abilities").$type<string[]>().notNull().default(["*"]),
    lastUsedAt: timestamptz("last_used_at"),
    ...timestamps,
  },
  (table) => [index("personal_access_tokens_user_id_index").on(table.userId)],
);

export type PersonalAccessToken = typeof personalAccessTokens.$inferSelect;
