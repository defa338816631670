import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { id, timestamptz } from "./columns.ts";
import { licenses } from "./licenses.ts";

/**
 * A device a license is activated on, named by the client's fingerprint (unique per license). The id
 * is a UUIDv7 made by the service, like a license's. Whether it is alive is computed at each check
 * from the license's heartbeat settings (features/machines/alive.ts); `dead_at` is only the sweep's
 * mark on a node-locked machine that died (a floating one is deleted instead).
 */
export const machines = pgTable(
  "machines",
  {
    id: uuid("id").primaryKey(),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    fingerprint: text("fingerprint").notNull(),
    name: text("name"),
    platform: text("platform"),
    hostname: text("hostname"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
    lastHeartbeatAt: timestamptz("last_heartbeat_at").notNull().defaultNow(),
    deadAt: timestamptz("dead_at"),
    /**
     * The latest expiry of the license files issued for this machine: until then it holds its seat,
     * alive or not, and only the vendor's API key may deactivate it (features/machines/seats.ts).
     */
    fileExpiresAt: timestamptz("file_expires_at"),
  },
  (table) => [
    uniqueIndex("machines_license_fingerprint_unique").on(table.licenseId, table.fingerprint),
    // The sweep looks for machines whose last heartbeat is old.
    index("machines_last_heartbeat_at_index").on(table.lastHeartbeatAt),
  ],
);

export type Machine = typeof machines.$inferSelect;

/** Each new activation of a machine; the last day's rows enforce MACHINE_ACTIVATIONS_PER_DAY. */
export const machineActivations = pgTable(
  "machine_activations",
  {
    id: id(),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (table) => [index("machine_activations_license_created_index").on(table.licenseId, table.createdAt)],
);
