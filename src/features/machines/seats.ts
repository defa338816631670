import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Machine, machines } from "../../db/schema/index.ts";
import { aliveSql } from "./alive.ts";

// Who holds a seat: an alive machine, and a machine whose license file has not expired yet, alive or
// not. A file works offline until its `exp` whatever depot does, so its machine keeps the seat until
// then: deactivating it is refused (409 MACHINE_FILE_VALID) unless the vendor's API key forces it.

/** SQL: the machine's latest license file is still valid, by the database's clock now. */
export const fileValidSql = sql<boolean>`coalesce(${machines.fileExpiresAt} > clock_timestamp(), false)`;

/**
 * SQL that is true for a machine holding one of its license's seats (`heartbeatSeconds` as for
 * aliveSql). A floating license's file never outlives the lease it was issued in (licenses/files.ts),
 * so there it holds no seat a dead machine would not; a node-locked machine that stopped its
 * heartbeats keeps its seat until its file expires.
 */
export function holdsSeatSql(heartbeatSeconds: number | null | SQLWrapper): SQL<boolean> {
  return sql<boolean>`(${aliveSql(heartbeatSeconds)} OR ${fileValidSql})`;
}

/**
 * Keeps `expiresAt` (a license file just issued) on the machine as its latest file expiry, if the
 * machine still exists and is alive: the UPDATE is that check, so a machine deactivated (or dead)
 * since it was read gets no file. Null when it matched nothing.
 */
export async function recordFileExpiry(
  ctx: Pick<AppContext, "db">,
  at: { licenseId: string; machineId: string; heartbeatSeconds: number | null },
  expiresAt: Date,
): Promise<Machine | undefined> {
  const [machine] = await ctx.db
    .update(machines)
    .set({ fileExpiresAt: sql`greatest(${machines.fileExpiresAt}, ${expiresAt.toISOString()}::timestamptz)` })
    .where(
      and(eq(machines.id, at.machineId), eq(machines.licenseId, at.licenseId), aliveSql(at.heartbeatSeconds)),
    )
    .returning();
  return machine;
}
