import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { ref, timestamps, timestamptz } from "./columns.ts";
import { licensePolicies } from "./license-policies.ts";
import { products } from "./products.ts";
import { users } from "./users.ts";

/**
 * A license ties an owner, a creator and a product together. The id is a UUIDv7 made by
 * the service (time-ordered, so the primary key index stays append-mostly); the key is what customers
 * paste, unique and looked up on every validation.
 */
export const licenses = pgTable(
  "licenses",
  {
    id: uuid("id").primaryKey(),
    key: text("key").notNull().unique(),
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    creatorId: ref("creator_id")
      .notNull()
      .references(() => users.id),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id),
    /** Null: never expires. */
    expires: timestamptz("expires"),
    /** Null: no address limit (the default for a license with maxMachines: machines are its limit). */
    maxIps: integer("max_ips"),
    /**
     * How many `license_ips` rows the license has, kept exact by a trigger on that table (migration
     * license_ip_count): each insert or delete of an address updates this row, so concurrent changes
     * queue on its row lock. Validation reads it with the license instead of counting the addresses.
     */
    ipCount: integer("ip_count").notNull().default(0),
    /** Null: machines are optional and uncounted; else at most this many alive machines (machines.ts). */
    maxMachines: integer("max_machines"),
    /** A seat is a lease kept alive by heartbeats (true), or held until deactivated (false). */
    floating: boolean("floating").notNull().default(false),
    /** Null: no heartbeats wanted. A machine without one for this long (plus grace) is dead. */
    heartbeatSeconds: integer("heartbeat_seconds"),
    /**
     * The longest a license file of this license may last, in seconds; null: its product's default
     * (`products.machine_file_ttl_max`), else a week for a node-locked license (licenses/files.ts).
     */
    machineFileTtlMax: integer("machine_file_ttl_max"),
    /** The policy it was made from (license-policies.ts); null: its numbers are all its own. */
    policyId: ref("policy_id").references(() => licensePolicies.id, { onDelete: "set null" }),
    /**
     * The settings it names itself (`maxIps`, `maxMachines`, `floating`, `heartbeatSeconds`,
     * `machineFileTtlMax`): a change to its policy leaves these alone and sets the others.
     */
    policyOverrides: text("policy_overrides").array().notNull().default(sql`'{}'::text[]`),
    revokedAt: timestamptz("revoked_at"),
    ...timestamps,
  },
  (table) => [
    // The list is oldest first, for all licenses or for one creator's (a creator-scoped API key).
    index("licenses_created_at_id_index").on(table.createdAt, table.id),
    index("licenses_creator_created_at_id_index").on(table.creatorId, table.createdAt, table.id),
    index("licenses_user_id_index").on(table.userId),
    // A policy's change updates its licenses.
    index("licenses_policy_id_index").on(table.policyId).where(sql`${table.policyId} IS NOT NULL`),
    // Holders of a product (notifications, downloads): its live licenses.
    index("licenses_product_holders_index")
      .on(table.productId, table.userId)
      .where(sql`${table.revokedAt} IS NULL`),
    // A floating seat is a lease: without heartbeats it would never end.
    check(
      "licenses_floating_heartbeats_check",
      sql`NOT ${table.floating} OR ${table.heartbeatSeconds} IS NOT NULL`,
    ),
    check(
      "licenses_heartbeat_seconds_check",
      sql`${table.heartbeatSeconds} IS NULL OR ${table.heartbeatSeconds} BETWEEN 10 AND 86400`,
    ),
    check("licenses_max_machines_check", sql`${table.maxMachines} IS NULL OR ${table.maxMachines} >= 0`),
    check(
      "licenses_machine_file_ttl_max_check",
      sql`${table.machineFileTtlMax} IS NULL OR ${table.machineFileTtlMax} BETWEEN 3600 AND 31536000`,
    ),
  ],
);

export type License = typeof licenses.$inferSelect;
