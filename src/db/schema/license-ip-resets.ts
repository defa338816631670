import { index, pgTable, uuid } from "drizzle-orm/pg-core";
import { id, ref, timestamptz } from "./columns.ts";
import { licenses } from "./licenses.ts";
import { users } from "./users.ts";

/** Each self-service IP reset by a license's owner; the last day's rows enforce "3 a day". */
export const licenseIpResets = pgTable(
  "license_ip_resets",
  {
    id: id(),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (table) => [index("license_ip_resets_license_created_index").on(table.licenseId, table.createdAt)],
);
