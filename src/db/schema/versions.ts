import { sql } from "drizzle-orm";
import { bigint, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ref, timestamps } from "./columns.ts";
import { products } from "./products.ts";
import { purchaseBenefits } from "./purchase-benefits.ts";
import { users } from "./users.ts";

/**
 * A published release of a product, or of one benefit of it. The row is inserted only once its file
 * is completely on disk, so a version that exists is always downloadable.
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
    title: text("title").notNull(),
    changelog: text("changelog").notNull(),
    changelogFormat: text("changelog_format", { enum: ["markdown", "html"] }).notNull(),
    /** The name the file was uploaded with, offered again on download. */
    fileName: text("file_name").notNull(),
    fileSize: bigint("file_size", { mode: "number" }).notNull(),
    contentType: text("content_type").notNull(),
    /** Hex SHA-256 of the file: the ETag, the Repr-Digest and the identical re-post check. */
    sha256: text("sha256").notNull(),
    /** Where the file lives, relative to STORAGE_DIR. */
    storageKey: text("storage_key").notNull(),
    publishedBy: ref("published_by").references(() => users.id),
    /** Whole downloads of this version's file (the product's `downloads` counts them all). */
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
  ],
);

export type Version = typeof versions.$inferSelect;
export type NewVersion = typeof versions.$inferInsert;
