// The charts' numbers, worked out of the stats API's rows: every day of the range (the API sends only
// days with counts), for one product or all of them together. Pure functions: what the charts draw
// and what their tables say are the same numbers.
import { type ChartSeries, daysBetween } from "../charts/numbers.ts";
import type { Stats } from "../wire.ts";

type Series = Stats["series"];
type Row<K extends keyof Series> = NonNullable<Series[K]>[number];

/** The rows of `productId`, or every row when it is null. */
export function ofProduct<K extends keyof Series>(stats: Stats, name: K, productId: number | null): Row<K>[] {
  const rows = (stats.series[name] ?? []) as Row<K>[];
  return productId === null ? rows : rows.filter((row) => row.product_id === String(productId));
}

export const daysOf = (stats: Stats) => daysBetween(stats.from, stats.to);

/** A count a day, every day of `days`, summed over the rows that `pick` files under a name. */
function byName<R extends { day: string; count: number }>(
  days: string[],
  rows: R[],
  pick: (row: R) => string,
  order: (a: string, b: string) => number,
): ChartSeries[] {
  const index = new Map(days.map((day, i) => [day, i]));
  const series = new Map<string, number[]>();
  for (const row of rows) {
    const at = index.get(row.day);
    if (at === undefined) continue;
    const name = pick(row);
    const values = series.get(name) ?? days.map(() => 0);
    values[at] = (values[at] ?? 0) + row.count;
    series.set(name, values);
  }
  return [...series.keys()].sort(order).map((label) => ({ label, values: series.get(label) ?? [] }));
}

/** Versions in release order: 1.2.0 before 1.10.0, a pre-release before its release. */
export const byVersion = (a: string, b: string) =>
  a.localeCompare(b, "en", { numeric: true }) || a.length - b.length;

/** VALID first, then the refusals by name. */
const byOutcome = (a: string, b: string) => (a === "VALID" ? -1 : b === "VALID" ? 1 : a.localeCompare(b));

export const validationSeries = (stats: Stats, productId: number | null) =>
  byName(daysOf(stats), ofProduct(stats, "validations", productId), (row) => row.code, byOutcome);

export const downloadSeries = (stats: Stats, productId: number | null) =>
  byName(daysOf(stats), ofProduct(stats, "downloads", productId), () => "Downloads", byOutcome);

/** Alive machines: the products' readings of a day added up (a gauge: days are not added). */
export const machineSeries = (stats: Stats, productId: number | null) =>
  byName(daysOf(stats), ofProduct(stats, "machines", productId), () => "Active machines", byOutcome);

export const sumOf = (series: ChartSeries[]) =>
  series.reduce((total, one) => total + one.values.reduce((sum, value) => sum + value, 0), 0);

/** The last day's value of a gauge. */
export const lastOf = (series: ChartSeries[]) =>
  series.reduce((total, one) => total + (one.values[one.values.length - 1] ?? 0), 0);

/** One product's share of clients per version per day (0–1), oldest version first. */
export function adoptionSeries(stats: Stats, productId: number): ChartSeries[] {
  const days = daysOf(stats);
  const index = new Map(days.map((day, i) => [day, i]));
  const series = new Map<string, number[]>();
  for (const row of ofProduct(stats, "adoption", productId)) {
    const at = index.get(row.day);
    if (at === undefined) continue;
    const values = series.get(row.version) ?? days.map(() => 0);
    values[at] = row.share;
    series.set(row.version, values);
  }
  return [...series.keys()].sort(byVersion).map((label) => ({ label, values: series.get(label) ?? [] }));
}

/**
 * "On latest": the share of clients seen in the last 7 days that run their product's latest
 * version, on the range's last day; null when no client reported a version or no latest is known.
 */
export function onLatest(stats: Stats, latest: Map<number, string>, productId: number | null): number | null {
  const last = stats.to;
  const rows = ofProduct(stats, "adoption", productId).filter(
    (row) => row.day === last && latest.has(Number(row.product_id)),
  );
  const clients = rows.reduce((total, row) => total + row.clients, 0);
  if (clients === 0) return null;
  const current = rows
    .filter((row) => latest.get(Number(row.product_id)) === row.version)
    .reduce((total, row) => total + row.clients, 0);
  return current / clients;
}
