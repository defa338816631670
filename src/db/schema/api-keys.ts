import { index, pgTable, text } from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/** License API keys. Only SHA-256(key) is stored; a key with a creator acts only for that creator. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    creatorId: ref("creator_id").references(() => users.id, { onDelete: "cascade" }),
    lastUsedAt: timestamptz("last_used_at"),
    ...timestamps,
  },
  (table) => [index("api_keys_creator_id_index").on(table.creatorId)],
);

export type ApiKey = typeof apiKeys.$inferSelect;
