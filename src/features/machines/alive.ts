import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { machines } from "../../db/schema/index.ts";

/**
 * When a machine dies: a license that wants heartbeats (floating, or `heartbeat_seconds` set) lets a
 * machine miss them for `heartbeatSeconds`, plus a grace of that many seconds again, at most 60.
 */
export const leaseSeconds = (heartbeatSeconds: number) => heartbeatSeconds + Math.min(heartbeatSeconds, 60);

/**
 * SQL that is true for an alive machine of a license whose heartbeat interval is `heartbeatSeconds`
 * (a number when the license is already read, its column in a query over many licenses). Computed at
 * the moment of the check, `clock_timestamp()` rather than the transaction's start, so a check that
 * waited for a license's row lock judges by the time it got it; the sweep only tidies up later.
 */
export function aliveSql(heartbeatSeconds: number | null | SQLWrapper): SQL<boolean> {
  if (heartbeatSeconds === null) return sql<boolean>`(${machines.deadAt} IS NULL)`;
  const interval = sql`${heartbeatSeconds}::int`;
  return sql<boolean>`(${machines.deadAt} IS NULL AND (${interval} IS NULL OR ${machines.lastHeartbeatAt} > clock_timestamp() - make_interval(secs => ${interval} + least(${interval}, 60))))`;
}
