// Ship → Versions and Rollouts: the versions of every product the reader manages. depot has no list of
// versions across products, so each product's newest page (100) is asked for, as Sell → Licenses does
// with licenses; a product with more says so under the table.
import { allItems } from "../listing.ts";
import { listVersions } from "../products/api.ts";
import { nextStep } from "../products/rollout-schedule.tsx";
import type { Product, Version } from "../wire.ts";

export interface ShippedVersion {
  product: Product;
  version: Version;
}

export interface Shipped {
  products: number;
  rows: ShippedVersion[];
  /** The products with more versions than their first page. */
  more: Product[];
}

export async function listShipped(): Promise<Shipped> {
  const products = await allItems<Product>("/api/products");
  const pages = await Promise.all(
    products.map(async (product) => ({ product, page: await listVersions(product.id) })),
  );
  return {
    products: products.length,
    rows: pages.flatMap(({ product, page }) => page.items.map((version) => ({ product, version }))),
    more: pages.filter(({ page }) => page.next !== null).map(({ product }) => product),
  };
}

/**
 * A live rollout: a published version offered to only part of the clients, or with a step still to
 * come that raises its share.
 */
export const isRollingOut = (version: Version, now = Date.now()) =>
  version.status === "published" && (version.rollout_percentage < 100 || nextStep(version, now) !== null);
