import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { products } from "./products.ts";

/**
 * A named template of license settings for one product (Keygen's policy): a license made from it takes
 * every number it does not name itself, and follows the policy when the policy changes. The licenses
 * keep the effective values in their own columns (licenses.ts), so validation reads one row.
 */
export const licensePolicies = pgTable(
  "license_policies",
  {
    id: id(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id),
    name: text("name").notNull(),
    /** Null: machines are optional and uncounted. */
    maxMachines: integer("max_machines"),
    /** Null: no address limit. */
    maxIps: integer("max_ips"),
    floating: boolean("floating").notNull().default(false),
    /** Null: no heartbeats wanted. */
    heartbeatSeconds: integer("heartbeat_seconds"),
    /** A new license's expiry is this long after its creation; null: it never expires. */
    durationSeconds: integer("duration_seconds"),
    /** The longest a license file of its licenses may last; null: the product's default. */
    machineFileTtlMax: integer("machine_file_ttl_max"),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("license_policies_product_name_unique").on(table.productId, sql`lower(${table.name})`),
    check(
      "license_policies_floating_heartbeats_check",
      sql`NOT ${table.floating} OR ${table.heartbeatSeconds} IS NOT NULL`,
    ),
    check(
      "license_policies_heartbeat_seconds_check",
      sql`${table.heartbeatSeconds} IS NULL OR ${table.heartbeatSeconds} BETWEEN 10 AND 86400`,
    ),
    check(
      "license_policies_max_machines_check",
      sql`${table.maxMachines} IS NULL OR ${table.maxMachines} BETWEEN 0 AND 10000`,
    ),
    check(
      "license_policies_max_ips_check",
      sql`${table.maxIps} IS NULL OR ${table.maxIps} BETWEEN 1 AND 10000`,
    ),
    check(
      "license_policies_duration_check",
      sql`${table.durationSeconds} IS NULL OR ${table.durationSeconds} > 0`,
    ),
    check(
      "license_policies_machine_file_ttl_max_check",
      sql`${table.machineFileTtlMax} IS NULL OR ${table.machineFileTtlMax} BETWEEN 3600 AND 31536000`,
    ),
  ],
);

export type LicensePolicy = typeof licensePolicies.$inferSelect;
