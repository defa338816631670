import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { ref, timestamps, timestamptz } from "./columns.ts";
import { users } from "./users.ts";
import { versions } from "./versions.ts";

/** What an in-app notification of a published version carries. */
export interface VersionPublishedData {
  product_id: number;
  product_name: string;
  version_id: number;
  version_number: string;
  title: string;
  benefit_name: string | null;
  /**
   * As stored, the plain download URL (rows from before links named their user hold a signed one);
   * every reader gets it signed for themselves, valid for 7 days from the fan-out (notifications/links.ts).
   */
  download_url: string;
  /** Only in a `version.yanked` notification: why the vendor withdrew it. */
  yank_reason?: string | null;
}

/**
 * In-app notifications, shaped like Laravel's database channel (uuid id, type, notifiable, data,
 * read_at). One per user, version and type (`version.published`, `version.yanked`): the fan-out's
 * `ON CONFLICT DO NOTHING` makes a retried or duplicated job add nothing.
 */
export const notifications = pgTable(
  "notifications",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    type: text("type").notNull(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    versionId: ref("version_id").references(() => versions.id, { onDelete: "cascade" }),
    data: jsonb("data").$type<VersionPublishedData>().notNull(),
    readAt: timestamptz("read_at"),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("notifications_user_version_type_unique").on(table.userId, table.versionId, table.type),
    index("notifications_user_created_index").on(table.userId, table.createdAt),
    index("notifications_user_unread_index")
      .on(table.userId, table.createdAt)
      .where(sql`${table.readAt} IS NULL`),
  ],
);

export type Notification = typeof notifications.$inferSelect;
