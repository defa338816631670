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
type PendingRow = { row: Row; count: number };

/**
 * A row's key in the pending map, one-to-one with its fields: the id, the day, the series and the
 * license id hold no "|", and the version's length says where it ends.
 */
const rowId = (
  productId: number,
  day: string,
  series: string,
  licenseId: string,
  version: string,
  detail: string,
) => `${productId}|${day}|${series}|${licenseId}|${version.length}|${version}|${detail}`;

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
  readonly #pending = new Map<string, PendingRow>();
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
    const day = this.#dayOf(now);
    const licenseId = key.licenseId ?? "";
    const version = key.version ?? "";
    const detail = key.detail ?? "";
    const id = rowId(key.productId, day, key.series, licenseId, version, detail);
    const pending = this.#pending.get(id);
    if (pending) pending.count += 1;
    else
      this.#keepNew(id, { day, productId: key.productId, series: key.series, licenseId, version, detail }, 1);
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

  /** Counts kept again after a failed write. */
  #keep(row: Row, count: number): void {
    const id = rowId(row.productId, row.day, row.series, row.licenseId, row.version, row.detail);
    const pending = this.#pending.get(id);
    if (pending) pending.count += count;
    else this.#keepNew(id, row, count);
  }

  #keepNew(id: string, row: Row, count: number): void {
    if (this.#pending.size >= MAX_PENDING) {
      this.#dropped += count;
      return;
    }
    this.#pending.set(id, { row, count });
  }

  /** Writes what has been counted so far (also on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = [...this.#pending.values()];
    this.#pending.clear();
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
