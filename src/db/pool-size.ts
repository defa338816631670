/**
 * The fewest connections an HTTP process's pool has, whatever DATABASE_POOL_SIZE says: with one, a
 * request's transaction would hold the only connection while every other request in that process
 * (and the readiness check's ping) waits for it, up to the statement timeout.
 */
export const MIN_PROCESS_POOL = 2;

/**
 * One `depot serve` process's share of DATABASE_POOL_SIZE, the connections for depot's queries that
 * all its processes open together at most: `max(2, floor(size / processes))`. One process gets the
 * whole size; from `processes > size / 2` the floor of 2 each makes the total exceed the size
 * (docs/operators.md, Connections). postgres.js connects lazily: a pool opens only as many
 * connections as its concurrent queries need, up to this.
 */
export function processPoolSize(size: number, processes: number): number {
  return Math.max(MIN_PROCESS_POOL, Math.floor(size / Math.max(1, processes)));
}
