import type { AppContext } from "../../context.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { sweepExpiredUploads } from "./service.ts";

/** How often expired uploads are looked for: an hour's expiry is the shortest UPLOAD_EXPIRY_HOURS. */
const SWEEP_EVERY_MS = 15 * 60 * 1000;

/**
 * Removes expired resumable uploads with their files now (at start-up) and then every SWEEP_EVERY_MS,
 * in the background; returns the function that stops it. Several instances sweeping at once remove
 * the same rows harmlessly.
 */
export function sweepExpiredUploadsEvery(ctx: Pick<AppContext, "db" | "releases" | "config" | "log">) {
  return everyInterval(ctx.log, SWEEP_EVERY_MS, "expired uploads not swept", async () => {
    const removed = await sweepExpiredUploads(ctx);
    if (removed > 0) ctx.log.info("expired uploads removed", { uploads: removed });
  });
}
