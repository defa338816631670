import type { Db } from "./client.ts";

const cache = new WeakMap<Db, Map<string, unknown>>();

/**
 * A hot query built once per database handle (and per `name`) and prepared, instead of on every
 * call: Drizzle assembles a query's SQL text each time it runs one, which is a large share of a
 * cheap request's CPU (bench/README.md). Values go in as `sql.placeholder(…)`s.
 */
export function preparedOnce<T>(db: Db, name: string, build: (db: Db) => T): T {
  let queries = cache.get(db);
  if (!queries) {
    queries = new Map();
    cache.set(db, queries);
  }
  let query = queries.get(name) as T | undefined;
  if (query === undefined) {
    query = build(db);
    queries.set(name, query);
  }
  return query;
}
