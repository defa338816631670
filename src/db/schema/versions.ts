import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  index,
  jsonb,
  pgTable,
  smallint,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { products } from "./products.ts";
import { purchaseBenefits } from "./purchase-benefits.ts";
import { RELEASE_CHANNELS, VERSION_STATUSES } from "./release-enums.ts";
import { users } from "./users.ts";

/**
 * A release of a product, or of one benefit of it. Its files are its artifacts (artifacts.ts); the
 * row is inserted together with its first artifact, once that file is completely stored, so a
 * version that exists always has a file to download.
 */
export const versions = pgTable(
  "versions",
  {
    id: id(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id),
    purchaseBenefitId: ref("purchase_benefit_id").references(() => purchaseBenefits.id),
    versionNumber: text("version_number").notNull(),
    /**
     * The name's semver precedence as text that sorts byte by byte (COLLATE "C") as
     * features/versions/semver.ts `compareSemver` orders the names; null for a name that is not
     * semver. PostgreSQL computes it (depot_semver_key, migration 0019), so every way a row is written
     * keeps it, and the feeds let the database order their candidates (features/versions/eligible.ts).
     */
    semverKey: text("semver_key").generatedAlwaysAs(sql`depot_semver_key(version_number)`),
    title: text("title").notNull(),
    changelog: text("changelog").notNull(),
    changelogFormat: text("changelog_format", { enum: ["markdown", "html"] }).notNull(),
    /** Who may be offered it by a feed: see features/versions/semver.ts for how it is derived. */
    channel: text("channel", { enum: RELEASE_CHANNELS }).notNull().default("stable"),
    /** A draft is seen only by its publishers; a yanked version is never offered, still downloadable. */
    status: text("status", { enum: VERSION_STATUSES }).notNull().default("published"),
    yankReason: text("yank_reason"),
    critical: boolean("critical").notNull().default(false),
    /** 0–100: the share of clients a feed offers it to (features/versions/eligible.ts). */
    rolloutPercentage: smallint("rollout_percentage").notNull().default(100),
    /** Steps that raise the rollout over time (features/versions/eligible.ts `effectiveRollout`). */
    rolloutSchedule: jsonb("rollout_schedule").$type<RolloutStep[]>(),
    /** When it was first published (null while a draft); holders are notified then, once. */
    publishedAt: timestamptz("published_at"),
    publishedBy: ref("published_by").references(() => users.id),
    /** Whole downloads of this version's files (the product's `downloads` counts them all). */
    downloads: bigint("downloads", { mode: "number" }).notNull().default(0),
    ...timestamps,
  },
  (table) => [
    // One version name per product and benefit (a whole-product version counts as benefit 0).
    uniqueIndex("versions_product_benefit_number_unique").on(
      table.productId,
      sql`coalesce(${table.purchaseBenefitId}, 0)`,
      table.versionNumber,
    ),
    index("versions_product_id_id_index").on(table.productId, table.id),
    check("versions_rollout_percentage_range", sql`${table.rolloutPercentage} BETWEEN 0 AND 100`),
  ],
);

/** From `at` on, the version is offered to at least `percentage` of the clients. */
export interface RolloutStep {
  at: string;
  percentage: number;
}

export type Version = typeof versions.$inferSelect;
export type NewVersion = typeof versions.$inferInsert;
