import { pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";
import { licenses } from "./licenses.ts";

/** The addresses a license has been validated from; at most `max_ips` of them. */
export const licenseIps = pgTable(
  "license_ips",
  {
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    /** Normalised textual address (IPv4 dotted, IPv6 compressed lower-case). */
    ip: text("ip").notNull(),
    firstSeenAt: timestamptz("first_seen_at").notNull().defaultNow(),
    lastSeenAt: timestamptz("last_seen_at").notNull().defaultNow(),
  },
  (table) => [primaryKey({ name: "license_ips_pkey", columns: [table.licenseId, table.ip] })],
);

export type LicenseIp = typeof licenseIps.$inferSelect;
