import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { Int } from "../../validation/schemas.ts";
import { notifyHolders, notifyYanked } from "../notifications/fan-out.ts";

/**
 * Enqueued in the same transaction that inserts the version (the outbox); its worker
 * notifies the holders.
 */
export const versionPublished = defineQueue({
  name: "version.published",
  payload: t.Object({ version_id: Int({ minimum: 1 }) }),
  options: { retryLimit: 10, retryBackoff: true, heartbeatSeconds: 15 },
  handle: (ctx, data) => notifyHolders(ctx, data.version_id),
});

/**
 * Enqueued in the transaction that yanks a version (only on the change: a PATCH repeating
 * `status: "yanked"` enqueues nothing); its worker tells the holders who downloaded it.
 */
export const versionYanked = defineQueue({
  name: "version.yanked",
  payload: t.Object({ version_id: Int({ minimum: 1 }) }),
  options: { retryLimit: 10, retryBackoff: true, heartbeatSeconds: 15 },
  handle: (ctx, data) => notifyYanked(ctx, data.version_id),
});
