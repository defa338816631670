import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { afterCommit, rootOf } from "../../db/transaction.ts";

/**
 * The per-process cache of what each product's update feeds may offer (offer.ts reads through it):
 * productId → its candidate lists, one per feed filter, loaded once and kept for at most `TTL_MS`.
 * Only what the feeds offer is cached; the license and holder check (access.ts) stays per request.
 *
 * Every write that changes what a feed offers calls `feedChanged` (publish, release, yank, rollout
 * and channel changes, artifacts added, signed or removed, a version or product deleted). It drops
 * the product here at once and again when the transaction commits (a poll in between may have read
 * the old rows), and sends `NOTIFY depot_feeds, '<product id>'` in the writer's transaction, which
 * PostgreSQL delivers at commit to every process that listens (`listenForFeedChanges`, at `serve`
 * start). The TTL bounds what a lost notification costs; on the embedded database there is one
 * process, so the in-process drop is all there is.
 */

export const FEED_CHANNEL = "depot_feeds";
/** The most a cached list lives: a notification lost (a reconnect) delays a change by this much at worst. */
export const TTL_MS = 5000;

interface Entry {
  loadedAt: number;
  lists: Map<string, Promise<unknown>>;
}

/** One cache per database: tests run several databases in one process, with the same product ids. */
const caches = new WeakMap<Db, Map<number, Entry>>();

function cacheOf(db: Db): Map<number, Entry> {
  const root = rootOf(db);
  let cache = caches.get(root);
  if (!cache) {
    cache = new Map();
    caches.set(root, cache);
  }
  return cache;
}

/** `key`'s list for the product, from the cache, else from `load` (a failed load is not kept). */
export function cached<T>(db: Db, productId: number, key: string, load: () => Promise<T>): Promise<T> {
  const cache = cacheOf(db);
  const now = Date.now();
  let entry = cache.get(productId);
  if (!entry || now - entry.loadedAt > TTL_MS) {
    entry = { loadedAt: now, lists: new Map() };
    cache.set(productId, entry);
  }
  const hit = entry.lists.get(key) as Promise<T> | undefined;
  if (hit) return hit;
  const lists = entry.lists;
  const loading = load();
  lists.set(key, loading);
  loading.catch(() => {
    if (lists.get(key) === loading) lists.delete(key);
  });
  return loading;
}

/** Drops the product's lists in this process (a load under way finishes for the polls already waiting on it). */
export function forgetFeed(db: Db, productId: number): void {
  cacheOf(db).delete(productId);
}

/** What every writer that changes a product's feeds calls, inside its transaction or after its write. */
export async function feedChanged(ctx: { db: Db }, productId: number): Promise<void> {
  forgetFeed(ctx.db, productId);
  afterCommit(ctx.db, () => forgetFeed(ctx.db, productId));
  await ctx.db.execute(sql`SELECT pg_notify(${FEED_CHANNEL}, ${String(productId)})`);
}

/** Applies every process's `feedChanged` to this one's cache (PostgreSQL; the embedded database has one process). */
export function onFeedChange(db: Db) {
  return (payload: string) => {
    const productId = Number(payload);
    if (Number.isSafeInteger(productId)) forgetFeed(db, productId);
  };
}
