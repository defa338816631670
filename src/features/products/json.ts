import type { Product } from "../../db/schema/index.ts";

const flag = (value: boolean) => (value ? "1" : "0");

/** A stored image reference → an absolute URL: absolute URLs stay, paths live under `$APP_URL/storage/`. */
export const imageUrl = (ref: string, appUrl: string) =>
  /^https?:\/\//i.test(ref) ? ref : `${appUrl}/storage/${ref.replace(/^\/+/, "")}`;

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
