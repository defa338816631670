import type { Db } from "./client.ts";

/** Open transactions (a Drizzle transaction is a Db that commits when its callback returns) → what runs after their commit. */
const transactions = new WeakMap<Db, { root: Db; afterCommit: (() => void)[] }>();

/**
 * Runs `fn` in a transaction, handing it the same context with `db` being the transaction, so code
 * inside never needs to know whether it got a database or a transaction. Called inside one already,
 * it runs in that one (no savepoint): the outer transaction decides.
 */
export async function withTransaction<C extends { db: Db }, T>(
  ctx: C,
  fn: (tx: C) => Promise<T>,
): Promise<T> {
  if (transactions.has(ctx.db)) return fn(ctx);
  const afterCommit: (() => void)[] = [];
  const result = await ctx.db.transaction((tx) => {
    const db = tx as unknown as Db;
    transactions.set(db, { root: ctx.db, afterCommit });
    return fn({ ...ctx, db });
  });
  for (const run of afterCommit) run();
  return result;
}

/** The database a transaction handle belongs to (a database handle: itself). */
export const rootOf = (db: Db): Db => transactions.get(db)?.root ?? db;

/** Runs `run` once `db`'s transaction has committed (never if it rolls back); outside one: now. */
export function afterCommit(db: Db, run: () => void): void {
  const open = transactions.get(db);
  if (open) open.afterCommit.push(run);
  else run();
}
