import { lt, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { DAY_MS } from "../../daily-limit.ts";
import { licenses, machines, updateClients, usageDays } from "../../db/schema/index.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { aliveSql } from "../machines/alive.ts";

/** Hourly: days change once a day, and alive machines are a gauge an hour apart is close enough for. */
const EVERY_MS = 60 * 60 * 1000;

/** The first day kept: days are named by UTC dates, as the counters name them. */
const oldestKept = (ctx: Pick<AppContext, "config">, now: Date) =>
  new Date(now.getTime() - ctx.config.statsRetentionDays * DAY_MS).toISOString().slice(0, 10);

/** Deletes usage rows and update clients older than STATS_RETENTION_DAYS; answers how many went. */
export async function deleteOldUsage(
  ctx: Pick<AppContext, "db" | "config">,
  now = new Date(),
): Promise<number> {
  const day = oldestKept(ctx, now);
  const usage = await ctx.db
    .delete(usageDays)
    .where(lt(usageDays.day, day))
    .returning({ day: usageDays.day });
  const clients = await ctx.db
    .delete(updateClients)
    .where(lt(updateClients.day, day))
    .returning({ day: updateClients.day });
  return usage.length + clients.length;
}

/**
 * Today's alive machines per license (the `machines` series): a gauge, so the day keeps the highest
 * count it was seen at. One set-based statement over the machines table.
 */
export async function recordAliveMachines(ctx: Pick<AppContext, "db">, now = new Date()): Promise<void> {
  const day = now.toISOString().slice(0, 10);
  await ctx.db.execute(sql`
    INSERT INTO ${usageDays} (day, product_id, series, license_id, version, detail, count)
    SELECT ${day}::date, ${licenses.productId}, 'machines', ${licenses.id}::text, '', '', count(*)
    FROM ${machines} JOIN ${licenses} ON ${licenses.id} = ${machines.licenseId}
    WHERE ${aliveSql(licenses.heartbeatSeconds)}
    GROUP BY ${licenses.productId}, ${licenses.id}
    ON CONFLICT (product_id, day, series, license_id, version, detail)
    DO UPDATE SET count = GREATEST(${usageDays}.count, excluded.count)`);
}

/** Records alive machines and sweeps old usage now and then every hour; returns the function that stops it. */
export function keepUsageEvery(ctx: Pick<AppContext, "db" | "config" | "log">) {
  return everyInterval(ctx.log, EVERY_MS, "usage not kept", async () => {
    if (ctx.config.statsRetentionDays > 0) await recordAliveMachines(ctx);
    const removed = await deleteOldUsage(ctx);
    if (removed > 0) ctx.log.info("old usage removed", { rows: removed });
  });
}
