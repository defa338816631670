import type { SQL } from "drizzle-orm";
import type { Db } from "./client.ts";

/**
 * Rows of a raw query. postgres.js returns an array, PGlite an object with `rows`;
 * callers should not have to care which database they run on.
 */
export async function selectRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return Array.isArray(result) ? (result as T[]) : (result as { rows: T[] }).rows;
}
