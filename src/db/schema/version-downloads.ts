import { pgTable, primaryKey } from "drizzle-orm/pg-core";
import { ref, timestamptz } from "./columns.ts";
import { users } from "./users.ts";
import { versions } from "./versions.ts";

/**
 * Who downloaded a version (a known user: a token, session, signed link or license key of a holder),
 * once per user: those told when the version is yanked.
 */
export const versionDownloads = pgTable(
  "version_downloads",
  {
    versionId: ref("version_id")
      .notNull()
      .references(() => versions.id, { onDelete: "cascade" }),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    firstAt: timestamptz("first_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.versionId, table.userId] })],
);
