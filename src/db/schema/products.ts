import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
} from "drizzle-orm/pg-core";
import { id, ref, timestamps, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/**
 * A product as the API describes it. The database keeps real types (booleans, bigint counters,
 * numeric discount, JSONB arrays); `toProductJson` turns them into the API's strings at the edge.
 */
export const products = pgTable(
  "products",
  {
    id: id(),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    description: text("description").notNull().default(""),
    longDescription: text("long_description").notNull().default(""),
    /** Percent off, 0–100, two decimals. */
    discount: numeric("discount", { precision: 5, scale: 2 }).notNull().default("0"),
    /** A path under `$APP_URL/storage/` or an absolute http(s) URL. */
    coverImage: text("cover_image"),
    galleryImages: jsonb("gallery_images").$type<string[]>().notNull().default([]),
    tags: jsonb("tags").$type<string[]>().notNull().default([]),
    youtubeVideoUrl: text("youtube_video_url"),
    featured: boolean("featured").notNull().default(false),
    hidden: boolean("hidden").notNull().default(false),
    disabled: boolean("disabled").notNull().default(false),
    free: boolean("free").notNull().default(false),
    placeholderInjection: boolean("placeholder_injection").notNull().default(false),
    /** The owner: the account that sells the product. */
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    /** A second owner (the vendor who builds it), with the same rights as `user_id`. */
    vendorId: ref("vendor_id").references(() => users.id),
    /** Storefront category; categories live outside depot, so this is a bare integer. */
    categoryId: bigint("category_id", { mode: "number" }),
    addonTo: ref("addon_to").references((): AnyPgColumn => products.id),
    impressions: bigint("impressions", { mode: "number" }).notNull().default(0),
    downloads: bigint("downloads", { mode: "number" }).notNull().default(0),
    /**
     * The default ceiling of its licenses' license files, in seconds, for a license without its own
     * (`licenses.machine_file_ttl_max`); null: a week for a node-locked license, none for the others.
     */
    machineFileTtlMax: integer("machine_file_ttl_max"),
    deletedAt: timestamptz("deleted_at"),
    ...timestamps,
  },
  (table) => [
    // Ownership look-ups: "purchases of products I own", "may I publish to this product".
    index("products_user_id_index").on(table.userId),
    index("products_vendor_id_index").on(table.vendorId).where(sql`${table.vendorId} IS NOT NULL`),
    check(
      "products_machine_file_ttl_max_check",
      sql`${table.machineFileTtlMax} IS NULL OR ${table.machineFileTtlMax} BETWEEN 3600 AND 31536000`,
    ),
  ],
);

export type Product = typeof products.$inferSelect;
export type NewProduct = typeof products.$inferInsert;
