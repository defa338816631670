import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { products, users, versionDownloads, versions } from "../../db/schema/index.ts";
import type { Logger } from "../../log.ts";
import { errorFields } from "../../log-errors.ts";

/** What was counted for one version since the last write (its product's count goes up by as much). */
interface Pending {
  productId: number;
  count: number;
}

/**
 * Download counts, added up in memory and written once every few seconds per version: a popular
 * release downloaded by thousands at once costs two UPDATEs per interval (the version's count and its
 * product's total), not a row lock per request. A crash loses at most one interval's counts, which a
 * counter can afford.
 */
export class DownloadCounter {
  readonly #pending = new Map<number, Pending>();
  /** "versionId:userId" of users who downloaded a version since the last write (version_downloads). */
  readonly #downloaders = new Set<string>();
  #timer: Timer | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly intervalMs = 5000,
  ) {}

  add(productId: number, versionId: number): void {
    this.#keep(versionId, productId, 1);
    this.#schedule();
  }

  /**
   * Remembers that a known user downloaded the version (any GET of its files, a range included: an
   * updater's differential download is one), so they are told if it is yanked. Written with the
   * counts, once per user and version however often they download it.
   */
  addDownloader(versionId: number, userId: number): void {
    this.#downloaders.add(`${versionId}:${userId}`);
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.#timer.unref();
    }
  }

  #keep(versionId: number, productId: number, count: number): void {
    const pending = this.#pending.get(versionId);
    this.#pending.set(versionId, { productId, count: (pending?.count ?? 0) + count });
  }

  /** Writes what has been counted so far (also on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = [...this.#pending];
    this.#pending.clear();
    await this.#writeDownloaders();
    for (const [versionId, { productId, count }] of batch) {
      try {
        // One transaction, so the product's total and its versions' counts never drift apart.
        await this.db.transaction(async (tx) => {
          await tx
            .update(versions)
            .set({ downloads: sql`${versions.downloads} + ${count}` })
            .where(eq(versions.id, versionId));
          await tx
            .update(products)
            .set({ downloads: sql`${products.downloads} + ${count}` })
            .where(eq(products.id, productId));
        });
      } catch (error) {
        // Keep the counts for the next try (the database may be briefly away).
        this.#keep(versionId, productId, count);
        this.log.warn("download counts not written", {
          product_id: productId,
          version_id: versionId,
          error: errorFields(error),
        });
      }
    }
  }

  async #writeDownloaders(): Promise<void> {
    const pairs = [...this.#downloaders];
    this.#downloaders.clear();
    if (pairs.length === 0) return;
    const rows = pairs.map((pair) => {
      const [versionId, userId] = pair.split(":").map(Number) as [number, number];
      return { versionId, userId };
    });
    try {
      // A version or user deleted meanwhile would break a foreign key: keep only rows of both that exist.
      await this.db.execute(sql`
        INSERT INTO ${versionDownloads} (version_id, user_id)
        SELECT d.version_id, d.user_id
        FROM jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ version_id: r.versionId, user_id: r.userId })))}::jsonb)
          AS d(version_id bigint, user_id bigint)
        WHERE EXISTS (SELECT 1 FROM ${versions} v WHERE v.id = d.version_id)
          AND EXISTS (SELECT 1 FROM ${users} u WHERE u.id = d.user_id)
        ON CONFLICT DO NOTHING`);
    } catch (error) {
      for (const pair of pairs) this.#downloaders.add(pair);
      this.log.warn("downloaders not written", { count: pairs.length, error: errorFields(error) });
    }
  }
}
