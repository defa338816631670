import { and, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { products, updateChecks, updateClients, versions } from "../../db/schema/index.ts";
import type { Logger } from "../../log.ts";
import { errorFields } from "../../log-errors.ts";

export type Feed = "electron" | "tauri" | "sparkle" | "squirrel" | "upgrade";

/** One feed request, as the daily table counts it. */
export interface UpdateCheckKey {
  productId: number;
  feed: Feed;
  channel: string;
  platform: string;
  /** '' when the feed does not say which version the client runs. */
  currentVersion: string;
  /** The client's rollout cohort: with a version, it is counted once a day for adoption (update_clients). */
  client?: string;
}

/**
 * What a client reports as its version when the product has no version of that name: one bucket, so
 * that invented names cannot add rows (a key holder could send a new one with every poll).
 */
export const OTHER_VERSION = "(other)";

type PendingRow = { key: UpdateCheckKey & { day: string }; count: number };
/** A client seen on a day, and the version it reported last. */
type ClientRow = { productId: number; day: string; client: string; currentVersion: string };

/**
 * The most distinct rows one interval keeps. A client names its own current version, so a key holder
 * could invent a new one per request; past this many the interval's new rows are dropped (and the
 * drop logged), which bounds both the memory and the table's growth.
 */
const MAX_PENDING = 10_000;

/** Rows per INSERT: 7 parameters each, well under PostgreSQL's 65,535 parameters a statement. */
const ROWS_PER_STATEMENT = 1_000;

/**
 * Feed requests, added up in memory and written every few seconds as one upsert: a fleet of apps
 * polling at once costs a statement per interval, not a row lock per poll, and a poll reads no more
 * than a validation does. A crash loses at most one interval's counts, which a counter can afford.
 */
export class UpdateCheckCounter {
  readonly #pending = new Map<string, PendingRow>();
  readonly #clients = new Map<string, ClientRow>();
  #timer: Timer | null = null;
  #dropped = 0;

  /** `counting` false (STATS_RETENTION_DAYS=0): nothing is kept, so nothing is counted. */
  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly counting = true,
    private readonly intervalMs = 5000,
  ) {}

  add({ client, ...key }: UpdateCheckKey, now = new Date()): void {
    if (!this.counting) return;
    const day = now.toISOString().slice(0, 10);
    this.#keep({ ...key, day }, 1);
    if (client !== undefined && key.currentVersion !== "") {
      this.#keepClient({ productId: key.productId, day, client, currentVersion: key.currentVersion });
    }
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.#timer.unref();
    }
  }

  #keep(key: UpdateCheckKey & { day: string }, count: number): void {
    const id = rowId(key);
    const pending = this.#pending.get(id);
    if (!pending && this.#pending.size >= MAX_PENDING) {
      this.#dropped += count;
      return;
    }
    this.#pending.set(id, { key, count: (pending?.count ?? 0) + count });
  }

  #keepClient(row: ClientRow): void {
    const id = JSON.stringify([row.productId, row.day, row.client]);
    if (!this.#clients.has(id) && this.#clients.size >= MAX_PENDING) {
      this.#dropped += 1;
      return;
    }
    this.#clients.set(id, row);
  }

  /** The product's versions among `pairs` ("productId name"), in one query. */
  async #knownVersions(named: { productId: number; currentVersion: string }[]): Promise<Set<string>> {
    if (named.length === 0) return new Set();
    return new Set(
      (
        await this.db
          .select({ productId: versions.productId, name: versions.versionNumber })
          .from(versions)
          .where(
            and(
              inArray(versions.productId, [...new Set(named.map(({ productId }) => productId))]),
              inArray(versions.versionNumber, [
                ...new Set(named.map(({ currentVersion }) => currentVersion)),
              ]),
            ),
          )
      ).map(({ productId, name }) => `${productId} ${name}`),
    );
  }

  /**
   * The rows with every version the product does not have counted as OTHER_VERSION (one query for
   * the interval's names), added together where that makes two rows one.
   */
  async #foldUnknownVersions(rows: PendingRow[]): Promise<PendingRow[]> {
    const named = rows.filter(({ key }) => key.currentVersion !== "");
    if (named.length === 0) return rows;
    const known = await this.#knownVersions(named.map(({ key }) => key));
    const folded = new Map<string, PendingRow>();
    for (const { key, count } of rows) {
      const currentVersion =
        key.currentVersion === "" || known.has(`${key.productId} ${key.currentVersion}`)
          ? key.currentVersion
          : OTHER_VERSION;
      const row = { ...key, currentVersion };
      const id = rowId(row);
      folded.set(id, { key: row, count: (folded.get(id)?.count ?? 0) + count });
    }
    return [...folded.values()];
  }

  /** Writes what has been counted so far (also on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    let batch: PendingRow[];
    try {
      batch = await this.#foldUnknownVersions(pending);
    } catch (error) {
      for (const { key, count } of pending) this.#keep(key, count);
      this.log.warn("update check counts not written", { rows: pending.length, error: errorFields(error) });
      return;
    }
    if (this.#dropped > 0) {
      this.log.warn("update checks not counted: too many distinct rows in one interval", {
        dropped: this.#dropped,
        kept_rows: batch.length,
      });
      this.#dropped = 0;
    }
    await this.#writeClients();
    for (let start = 0; start < batch.length; start += ROWS_PER_STATEMENT) {
      const rows = batch.slice(start, start + ROWS_PER_STATEMENT);
      try {
        await this.db
          .insert(updateChecks)
          .values(rows.map(({ key, count }) => ({ ...key, checks: count })))
          .onConflictDoUpdate({
            target: [
              updateChecks.productId,
              updateChecks.day,
              updateChecks.feed,
              updateChecks.channel,
              updateChecks.platform,
              updateChecks.currentVersion,
            ],
            set: { checks: sql`${updateChecks.checks} + excluded.checks` },
          });
      } catch (error) {
        // Keep the counts for the next try (the database may be briefly away, or a product deleted).
        for (const { key, count } of rows) this.#keep(key, count);
        this.log.warn("update check counts not written", { rows: rows.length, error: errorFields(error) });
      }
    }
  }

  /**
   * The clients seen since the last write, one row a client and day holding the version it reported
   * last (unknown names as OTHER_VERSION). The cohort is stored hashed: it may be a license key.
   */
  async #writeClients(): Promise<void> {
    const seen = [...this.#clients.values()];
    this.#clients.clear();
    if (seen.length === 0) return;
    try {
      const known = await this.#knownVersions(seen);
      for (let start = 0; start < seen.length; start += ROWS_PER_STATEMENT) {
        const rows = seen.slice(start, start + ROWS_PER_STATEMENT).map((row) => ({
          product_id: row.productId,
          day: row.day,
          client: clientHash(row.client),
          current_version: known.has(`${row.productId} ${row.currentVersion}`)
            ? row.currentVersion
            : OTHER_VERSION,
        }));
        // A product deleted meanwhile would break the foreign key: its rows are left out.
        await this.db.execute(sql`
          INSERT INTO ${updateClients} (product_id, day, client, current_version)
          SELECT c.product_id, c.day, c.client, c.current_version
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
            AS c(product_id bigint, day date, client text, current_version text)
          WHERE EXISTS (SELECT 1 FROM ${products} p WHERE p.id = c.product_id)
          ON CONFLICT (product_id, day, client) DO UPDATE SET current_version = excluded.current_version`);
      }
    } catch (error) {
      // A client polls again: losing one interval's sightings costs nothing it will not report again.
      this.log.warn("update clients not written", { rows: seen.length, error: errorFields(error) });
    }
  }
}

/** A cohort key, hashed: adoption needs only to tell clients apart. */
const clientHash = (cohort: string) =>
  new Bun.CryptoHasher("sha256").update(cohort).digest("hex").slice(0, 32);

const rowId = (key: UpdateCheckKey & { day: string }) =>
  JSON.stringify([key.productId, key.day, key.feed, key.channel, key.platform, key.currentVersion]);
