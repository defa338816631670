import { t } from "elysia";
import type { Product } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";
import { orNull } from "./schemas.ts";

const DateTime = t.String({ format: "date-time" });
const Flag = t.String({ enum: ["0", "1"], description: '"0" or "1"' });
const Count = t.String({ pattern: "^\\d+$", description: "a count, as a decimal string" });

const flag = (value: boolean) => (value ? "1" : "0");

/** What the dashboard's product table shows beside each product (product-counts.ts). */
export const ProductCountsJson = t.Object(
  {
    versions: Int({ description: "every version, drafts and yanked ones too" }),
    latest_version: t.Union([t.String(), t.Null()], {
      description: "the newest published version of the whole product (as /versions/latest); null: none",
    }),
    licenses: Int({ description: "every license of the product, revoked and expired ones too" }),
    validations_7d: Int({
      description:
        "license validations of today and the 6 days before (UTC), every outcome, from the daily usage " +
        "rollups (written in batches: the last seconds may not be counted yet)",
    }),
  },
  { description: "only with ?counts=1" },
);
export type ProductCounts = typeof ProductCountsJson.static;

/** A stored image reference → an absolute URL: absolute URLs stay, paths live under `$APP_URL/storage/`. */
export const imageUrl = (ref: string, appUrl: string) =>
  /^https?:\/\//i.test(ref) ? ref : `${appUrl}/storage/${ref.replace(/^\/+/, "")}`;

/** The API's product, field for field: flags, counts and the discount are strings. */
export const ProductJson = t.Object({
  id: Int(),
  name: t.String(),
  description: t.String(),
  slug: t.String(),
  discount: t.String({ description: 'percent off, e.g. "10.00"' }),
  cover_image: orNull(t.String()),
  created_at: DateTime,
  updated_at: DateTime,
  long_description: t.String(),
  featured: Flag,
  gallery_images: t.Array(t.String()),
  user_id: Int(),
  category_id: orNull(Int()),
  hidden: Flag,
  addon_to: orNull(Int()),
  disabled: Flag,
  free: Flag,
  vendor_id: orNull(Int()),
  placeholder_injection: Flag,
  tags: t.Array(t.String()),
  deleted_at: orNull(DateTime),
  youtube_video_url: orNull(t.String()),
  cover_image_url: orNull(t.String()),
  gallery_image_urls: t.String({ description: "a JSON-encoded array of absolute URLs" }),
  impressions: Count,
  downloads: Count,
  purchases: Count,
  full_url: t.String(),
  counts: t.Optional(ProductCountsJson),
});

/** The API's product: the row's booleans, counters and numeric become strings here and only here. */
export function toProductJson(product: Product, purchases: number, appUrl: string) {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    slug: product.slug,
    discount: Number(product.discount).toFixed(2),
    cover_image: product.coverImage,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
    long_description: product.longDescription,
    featured: flag(product.featured),
    gallery_images: product.galleryImages,
    user_id: product.userId,
    category_id: product.categoryId,
    hidden: flag(product.hidden),
    addon_to: product.addonTo,
    disabled: flag(product.disabled),
    free: flag(product.free),
    vendor_id: product.vendorId,
    placeholder_injection: flag(product.placeholderInjection),
    tags: product.tags,
    deleted_at: product.deletedAt?.toISOString() ?? null,
    youtube_video_url: product.youtubeVideoUrl,
    cover_image_url: product.coverImage === null ? null : imageUrl(product.coverImage, appUrl),
    gallery_image_urls: JSON.stringify(product.galleryImages.map((ref) => imageUrl(ref, appUrl))),
    impressions: String(product.impressions),
    downloads: String(product.downloads),
    purchases: String(purchases),
    // The storefront page; depot serves the API, the storefront lives at the same public base URL.
    full_url: `${appUrl}/products/${product.slug}`,
  };
}

/** What the caller may do with a product: `GET /api/products/{product}/access`. */
export const ProductAccessJson = t.Object({
  manage: t.Boolean({ description: "manage it: its licenses, and its pages in the dashboard" }),
  publish: t.Boolean({
    description:
      "publish versions to it and delete them (false for a deleted product: it takes no new versions)",
  }),
});

export const ProductPageJson = simplePageOf(ProductJson);
