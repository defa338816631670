import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { products } from "../../db/schema/index.ts";
import type { Logger } from "../../log.ts";
import { errorFields } from "../../log-errors.ts";

/**
 * Download counts, added up in memory and written once every few seconds per product: a popular
 * release downloaded by thousands at once costs one UPDATE per interval, not a row lock per request.
 * A crash loses at most one interval's counts, which a counter can afford.
 */
export class DownloadCounter {
  readonly #pending = new Map<number, number>();
  #timer: Timer | null = null;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly intervalMs = 5000,
  ) {}

  add(productId: number): void {
    this.#pending.set(productId, (this.#pending.get(productId) ?? 0) + 1);
    if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.#timer.unref();
    }
  }

  /** Writes what has been counted so far (also on shutdown). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const batch = [...this.#pending];
    this.#pending.clear();
    for (const [productId, count] of batch) {
      try {
        await this.db
          .update(products)
          .set({ downloads: sql`${products.downloads} + ${count}` })
          .where(eq(products.id, productId));
      } catch (error) {
        // Keep the counts for the next try (the database may be briefly away).
        this.#pending.set(productId, (this.#pending.get(productId) ?? 0) + count);
        this.log.warn("download counts not written", { product_id: productId, error: errorFields(error) });
      }
    }
  }
}
