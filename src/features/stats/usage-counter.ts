import { sql } from "drizzle-orm";
import { DAY_MS } from "../../daily-limit.ts";
import type { Db } from "../../db/client.ts";
import { products, usageDays } from "../../db/schema/index.ts";
import type { Logger } from "../../log.ts";
import { errorFields } from "../../log-errors.ts";

/** The series counted one event at a time (`machines` is a gauge, written by machine-gauge.ts). */
export type CountedSeries = "validations" | "activations" | "deactivations" | "downloads";

/** One event, as usage_days counts it. */
export interface UsageKey {
  productId: number;
  series: CountedSeries;
  /** The license's id, '' when there is none. */
  licenseId?: string;
  /** The version's name (downloads). */
  version?: string;
  /** The validation's code, or the downloaded file's name. */
  detail?: string;
}

type Row = {
  day: string;
  productId: number;
  series: string;
  licenseId: string;
  version: string;
  detail: string;
};

/**
 * The pending counts, a Map per field of the row (day, product, series, version, detail, then the
 * license's count): counting an event looks up values it already holds and builds no key string,
 * which joined and hashed for every validation was most of what counting cost (bench/README.md,
 * "Usage rollups").
 */
type Counts = Map<string, Map<number, Map<string, Map<string, Map<string, Map<string, number>>>>>>;

/** One level down `counts`: `map`'s Map at `key`, made (and set) when missing if `make`. */
function level<K, V extends Map<unknown, unknown>>(
  map: Map<K, V> | undefined,
  key: K,
  make: boolean,
): V | undefined {
  if (map === undefined) return undefined;
  let value = map.get(key);
  if (value === undefined && make) {
    value = new Map() as V;
    map.set(key, value);
  }
  return value;
}

/**
 * The most distinct rows one interval keeps: a row is a license and a code a day, so this is ten
 * thousand licenses validating in one interval; past it the interval's new rows are dropped (and the
 * drop logged), which bounds the memory.
 */
const MAX_PENDING = 10_000;

/** Rows per statement: one JSON parameter each, kept small enough to write quickly. */
const ROWS_PER_STATEMENT = 1_000;

/**
 * Usage events (validations, activations, deactivations, downloads), added up in memory and written
 * every few seconds as one upsert, like update checks (features/updates/check-counter.ts): a
 * validation costs a Map update, never a statement, so its throughput stays what it was. A crash
 * loses at most one interval's counts, which a counter can afford.
 */
export class UsageCounter {
  #pending: Counts = new Map();
  /** How many rows #pending holds. */
  #rows = 0;
  #timer: Timer | null = null;
  #dropped = 0;
  /** Today (UTC) as add() last saw it: its first millisecond and its name. */
  #dayStart = Number.NaN;
  #dayName = "";

  /** `counting` false (STATS_RETENTION_DAYS=0): nothing is kept, so nothing is counted. */
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly counting = true,
    private readonly intervalMs = 5000,
  ) {}

  /**
   * Counts one event. The hot paths call this once per validation, so it allocates as little as it
   * can: a repeated row only has its count raised, and today's name is worked out once a day.
   */
  add(key: UsageKey, now = Date.now()): void {
    if (!this.counting) return;
    this.#keep(
      {
        day: this.#dayOf(now),
        productId: key.productId,
        series: key.series,
        licenseId: key.licenseId ?? "",
        version: key.version ?? "",
        detail: key.detail ?? "",
      },
      1,
    );
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.#timer.unref();
    }
  }

  /** The UTC date of `now` (ms), as usage_days names days; recomputed only when the day turns. */
  #dayOf(now: number): string {
    if (!(now >= this.#dayStart && now < this.#dayStart + DAY_MS)) {
      this.#dayStart = now - (now % DAY_MS);
      this.#dayName = new Date(this.#dayStart).toISOString().slice(0, 10);
    }
    return this.#dayName;
  }

  /** Adds `count` to the row's (a new row past MAX_PENDING is dropped, and said at the next flush). */
  #keep(row: Row, count: number): void {
    // Full, a new row makes no Maps: hostile product ids or versions cannot grow memory past the cap.
    const make = this.#rows < MAX_PENDING;
    const counts = level(
      level(
        level(level(level(this.#pending, row.day, make), row.productId, make), row.series, make),
        row.version,
        make,
      ),
      row.detail,
      make,
    );
    const pending = counts?.get(row.licenseId);
    if (counts === undefined || (pending === undefined && !make)) this.#dropped += count;
    else if (pending !== undefined) counts.set(row.licenseId, pending + count);
    else {
      counts.set(row.licenseId, count);
      this.#rows += 1;
    }
  }

  /** Every pending row with its count, emptying #pending. */
  #take(): { row: Row; count: number }[] {
    const batch: { row: Row; count: number }[] = [];
    for (const [day, products] of this.#pending)
      for (const [productId, series] of products)
        for (const [seriesName, versions] of series)
          for (const [version, details] of versions)
            for (const [detail, licenses] of details)
              for (const [licenseId, count] of licenses)
                batch.push({
                  row: { day, productId, series: seriesName, licenseId, version, detail },
                  count,
                });
    this.#pending = new Map();
    this.#rows = 0;
    return batch;
  }

  /** Writes what has been counted so far (also on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = this.#take();
    if (this.#dropped > 0) {
      this.log.warn("usage not counted: too many distinct rows in one interval", { dropped: this.#dropped });
      this.#dropped = 0;
    }
    for (let start = 0; start < batch.length; start += ROWS_PER_STATEMENT) {
      const rows = batch.slice(start, start + ROWS_PER_STATEMENT);
      const records = rows.map(({ row, count }) => ({
        day: row.day,
        product_id: row.productId,
        series: row.series,
        license_id: row.licenseId,
        version: row.version,
        detail: row.detail,
        count,
      }));
      try {
        // A product deleted meanwhile would break the foreign key: its rows are left out.
        await this.db.execute(sql`
          INSERT INTO ${usageDays} (day, product_id, series, license_id, version, detail, count)
          SELECT u.day, u.product_id, u.series, u.license_id, u.version, u.detail, u.count
          FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
            AS u(day date, product_id bigint, series text, license_id text, version text, detail text, count bigint)
          WHERE EXISTS (SELECT 1 FROM ${products} p WHERE p.id = u.product_id)
          ON CONFLICT (product_id, day, series, license_id, version, detail)
          DO UPDATE SET count = ${usageDays}.count + excluded.count`);
      } catch (error) {
        // Keep the counts for the next try (the database may be briefly away).
        for (const { row, count } of rows) this.#keep(row, count);
        this.log.warn("usage counts not written", { rows: rows.length, error: errorFields(error) });
      }
    }
  }
}
