import type { AppContext } from "../../context.ts";
import { errorFields } from "../../log-errors.ts";
import { sweepExpiredUploads } from "./service.ts";

/** How often expired uploads are looked for: an hour's expiry is the shortest UPLOAD_EXPIRY_HOURS. */
const SWEEP_EVERY_MS = 15 * 60 * 1000;

/**
 * Removes expired resumable uploads with their files now (at start-up) and then every SWEEP_EVERY_MS,
 * in the background; returns the function that stops it. Several instances sweeping at once remove
 * the same rows harmlessly.
 */
export function sweepExpiredUploadsEvery(ctx: Pick<AppContext, "db" | "releases" | "config" | "log">) {
  const sweep = async () => {
    try {
      const removed = await sweepExpiredUploads(ctx);
      if (removed > 0) ctx.log.info("expired uploads removed", { uploads: removed });
    } catch (error) {
      ctx.log.warn("expired uploads not swept", { error: errorFields(error) });
    }
  };
  void sweep();
  const timer = setInterval(() => void sweep(), SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
