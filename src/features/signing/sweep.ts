import type { AppContext } from "../../context.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { dropExpiredKeys } from "./keys.ts";

/**
 * A retired key leaves the published set the moment its grace period ends; its row, with the sealed
 * private half, is deleted by this sweep, so a key is not kept a day longer than it may verify
 * anything even when nobody rotates again for months. Hourly is close enough.
 */
const SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Deletes signing keys past their grace period now and then every hour; returns the function that stops it. */
export function dropExpiredKeysEvery(ctx: Pick<AppContext, "db" | "config" | "log">) {
  return everyInterval(ctx.log, SWEEP_EVERY_MS, "expired signing keys not dropped", async () => {
    const dropped = await dropExpiredKeys(ctx);
    if (dropped.length > 0) ctx.log.info("signing keys past their grace period dropped", { kids: dropped });
  });
}
