import { and, eq, inArray, isNull, lt, not, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { dayAgo } from "../../daily-limit.ts";
import { licenses, machineActivations, machines } from "../../db/schema/index.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { aliveSql } from "./alive.ts";
import { fileValidSql } from "./seats.ts";

/**
 * Every check computes death by itself (alive.ts), so the sweep is only housekeeping: a minute keeps
 * the dashboard's lists short without costing anything noticeable.
 */
const SWEEP_EVERY_MS = 60 * 1000;

/**
 * Dead machines of floating licenses are deleted (their seat was a lease) once no license file of
 * theirs is valid (a file never outlives the lease it was issued in, unless the interval was changed
 * since); dead machines of node-locked licenses are marked `dead_at` and kept, for the customer to
 * see and deactivate. Activations older than a day count for nothing and are deleted. Several
 * instances sweeping at once do the same thing harmlessly.
 */
export async function sweepDeadMachines(ctx: Pick<AppContext, "db">) {
  const dead = and(not(aliveSql(licenses.heartbeatSeconds)), isNull(machines.deadAt));
  const deadOf = (floating: boolean) =>
    ctx.db
      .select({ id: machines.id })
      .from(machines)
      .innerJoin(licenses, eq(licenses.id, machines.licenseId))
      .where(and(dead, eq(licenses.floating, floating)));
  const deleted = await ctx.db
    .delete(machines)
    .where(and(inArray(machines.id, deadOf(true)), not(fileValidSql)))
    .returning({ id: machines.id });
  const marked = await ctx.db
    .update(machines)
    .set({ deadAt: sql`clock_timestamp()` })
    .where(inArray(machines.id, deadOf(false)))
    .returning({ id: machines.id });
  await ctx.db.delete(machineActivations).where(lt(machineActivations.createdAt, dayAgo()));
  return { deleted: deleted.length, marked: marked.length };
}

/** Runs the sweep now and then every minute in the background; returns the function that stops it. */
export function sweepDeadMachinesEvery(ctx: Pick<AppContext, "db" | "log">) {
  return everyInterval(ctx.log, SWEEP_EVERY_MS, "dead machines not swept", async () => {
    const { deleted, marked } = await sweepDeadMachines(ctx);
    if (deleted + marked > 0) ctx.log.info("dead machines swept", { deleted, marked });
  });
}
