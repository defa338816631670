// What a seller's Home shows: their products, the last 30 days of validations and downloads (the
// stats API: every product's for an admin, else each product's own), and what the getting-started
// list ticks off, all read from real data.
import { get } from "../api.ts";
import { allItems, listing } from "../listing.ts";
import { isAdmin } from "../session.ts";
import type { Product, Stats, User, ValidationRow } from "../wire.ts";

export interface Overview {
  products: Product[];
  validations: ValidationRow[];
  downloads: number;
  polls: number;
  hasToken: boolean;
  hasVersion: boolean;
  hasLicense: boolean;
}

const SERIES = "series=validations,downloads,polls";

/** At most this many products are asked for their versions and licenses (the list's first ones). */
const CHECKED = 10;

async function statsOf(user: User, products: Product[]): Promise<Stats[]> {
  if (isAdmin(user)) return [await get<Stats>(`/api/stats?${SERIES}`)];
  return Promise.all(products.map((product) => get<Stats>(`/api/products/${product.id}/stats?${SERIES}`)));
}

export async function loadOverview(user: User): Promise<Overview> {
  const products = await allItems<Product>("/api/products");
  const checked = products.slice(0, CHECKED);
  const [stats, tokens, versions, licenses] = await Promise.all([
    statsOf(user, products),
    listing("/api/tokens", 1),
    Promise.all(checked.map((product) => listing(`/api/products/${product.id}/versions`, 1))),
    Promise.all(checked.map((product) => listing(`/api/products/${product.id}/licenses`, 1))),
  ]);
  const sum = (rows: { count: number }[] | undefined) =>
    (rows ?? []).reduce((total, row) => total + row.count, 0);
  return {
    products,
    validations: stats.flatMap((answer) => answer.series.validations ?? []),
    downloads: stats.reduce((total, answer) => total + sum(answer.series.downloads), 0),
    polls: stats.reduce((total, answer) => total + sum(answer.series.polls), 0),
    hasToken: tokens.items.length > 0,
    hasVersion: versions.some((page) => page.items.length > 0),
    hasLicense: licenses.some((page) => page.items.length > 0),
  };
}
