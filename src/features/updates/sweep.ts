import { lt } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { DAY_MS } from "../../daily-limit.ts";
import { updateChecks } from "../../db/schema/index.ts";
import { everyInterval } from "../../jobs/periodic.ts";

/**
 * Days change once a day: hourly finds a new one soon enough. The DELETE reads the whole table (its
 * key starts with the product), which stays small now that only a product's own versions are rows.
 */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Deletes the update checks of days older than STATS_RETENTION_DAYS; answers how many rows went. */
export async function deleteOldUpdateChecks(
  ctx: Pick<AppContext, "db" | "config">,
  now = new Date(),
): Promise<number> {
  // The counter names days by UTC dates from this clock; the cut-off is named the same way.
  const oldestKept = new Date(now.getTime() - ctx.config.statsRetentionDays * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const deleted = await ctx.db
    .delete(updateChecks)
    .where(lt(updateChecks.day, oldestKept))
    .returning({ day: updateChecks.day });
  return deleted.length;
}

/** Sweeps old update checks now and then every hour; returns the function that stops it. */
export function sweepOldUpdateChecksEvery(ctx: Pick<AppContext, "db" | "config" | "log">) {
  return everyInterval(ctx.log, SWEEP_EVERY_MS, "old update checks not swept", async () => {
    const removed = await deleteOldUpdateChecks(ctx);
    if (removed > 0) ctx.log.info("old update checks removed", { rows: removed });
  });
}
