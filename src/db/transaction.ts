import type { Db } from "./client.ts";

/** Handles that are open transactions (a Drizzle transaction is a Db that commits when its callback returns). */
const transactions = new WeakSet<Db>();

/**
 * Runs `fn` in a transaction, handing it the same context with `db` being the transaction, so code
 * inside never needs to know whether it got a database or a transaction. Called inside one already,
 * it runs in that one (no savepoint): the outer transaction decides.
 */
export function withTransaction<C extends { db: Db }, T>(ctx: C, fn: (tx: C) => Promise<T>): Promise<T> {
  if (transactions.has(ctx.db)) return fn(ctx);
  return ctx.db.transaction((tx) => {
    const db = tx as unknown as Db;
    transactions.add(db);
    return fn({ ...ctx, db });
  });
}
