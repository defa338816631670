// What Home shows a seller: their products, the last 30 days of usage (the stats API: every
// product's at once for an admin, else each product's own, put together), each product's latest
// version (for "on latest"), what the getting-started list ticks off, and for an admin how many
// users and purchases there are; all read from real data.
import { get } from "../api.ts";
import { allItems, listing } from "../listing.ts";
import { isAdmin } from "../session.ts";
import type { Product, Stats, User, Version } from "../wire.ts";

export interface Overview {
  products: Product[];
  /** Every product's series in one answer (rows carry their product_id). */
  stats: Stats;
  /** A product's latest stable published version of the whole product, by product id. */
  latest: Map<number, string>;
  hasToken: boolean;
  hasVersion: boolean;
  hasLicense: boolean;
  /** Admins: every user and purchase. */
  counts: { users: number; purchases: number } | null;
}

/** The series Home and a product's page chart. */
export const CHARTED = "series=validations,machines,downloads,polls,adoption,rollouts";

/** At most this many products are asked for their versions and licenses (the list's first ones). */
const CHECKED = 10;

/** Several answers of the stats API as one: the same days, every row. */
export function mergeStats(answers: Stats[], fallback: { from: string; to: string }): Stats {
  const series: Stats["series"] = {};
  for (const answer of answers) {
    for (const [name, rows] of Object.entries(answer.series)) {
      const key = name as keyof Stats["series"];
      // biome-ignore lint/suspicious/noExplicitAny: rows of the same series are put together as they are.
      (series as any)[key] = [...((series[key] as unknown[]) ?? []), ...(rows as unknown[])];
    }
  }
  const first = answers[0];
  return {
    from: first?.from ?? fallback.from,
    to: first?.to ?? fallback.to,
    scope: first?.scope ?? "all",
    series,
  };
}

/** The newest version of the whole product (not a benefit's) that is published on the stable channel. */
export const latestOf = (versions: Version[]) =>
  versions.find(
    (version) =>
      version.status === "published" && version.channel === "stable" && version.purchase_benefit_id === null,
  )?.version_number;

export const readStats = (productId: number) => get<Stats>(`/api/products/${productId}/stats?${CHARTED}`);

async function statsOf(user: User, products: Product[]): Promise<Stats> {
  const today = new Date().toISOString().slice(0, 10);
  if (isAdmin(user)) return get<Stats>(`/api/stats?${CHARTED}`);
  return mergeStats(await Promise.all(products.map((product) => readStats(product.id))), {
    from: today,
    to: today,
  });
}

/** How many items a list has, counted page by page (the lists answer no total). */
const countOf = async (path: string) => (await allItems<unknown>(path)).length;

export async function loadOverview(user: User): Promise<Overview> {
  const products = await allItems<Product>("/api/products");
  const checked = products.slice(0, CHECKED);
  const [stats, tokens, versions, licenses, counts] = await Promise.all([
    statsOf(user, products),
    listing("/api/tokens", 1),
    Promise.all(checked.map((product) => listing<Version>(`/api/products/${product.id}/versions`, 20))),
    Promise.all(checked.map((product) => listing(`/api/products/${product.id}/licenses`, 1))),
    isAdmin(user)
      ? Promise.all([countOf("/api/admin/users"), countOf("/api/purchases")]).then(([users, purchases]) => ({
          users,
          purchases,
        }))
      : null,
  ]);
  const latest = new Map<number, string>();
  checked.forEach((product, index) => {
    const name = latestOf(versions[index]?.items ?? []);
    if (name !== undefined) latest.set(product.id, name);
  });
  return {
    products,
    stats,
    latest,
    hasToken: tokens.items.length > 0,
    hasVersion: versions.some((page) => page.items.length > 0),
    hasLicense: licenses.some((page) => page.items.length > 0),
    counts,
  };
}
