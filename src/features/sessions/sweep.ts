import type { AppContext } from "../../context.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { deleteExpiredSessions } from "./service.ts";
import { deleteSpentAttemptWindows } from "./sign-in-throttle.ts";

/**
 * Expired sessions are already refused, and a spent sign-in window counts for nothing, so sweeping
 * them is only housekeeping: hourly is plenty.
 */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/**
 * Deletes expired dashboard sessions and spent sign-in attempt windows now and then every hour;
 * returns the function that stops it.
 */
export function sweepExpiredSessionsEvery(ctx: Pick<AppContext, "db" | "log">) {
  return everyInterval(ctx.log, SWEEP_EVERY_MS, "expired sessions not swept", async () => {
    const removed = await deleteExpiredSessions(ctx);
    if (removed > 0) ctx.log.info("expired sessions removed", { sessions: removed });
    const windows = await deleteSpentAttemptWindows(ctx);
    if (windows > 0) ctx.log.info("spent sign-in attempt windows removed", { windows });
  });
}
