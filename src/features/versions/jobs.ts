import { t } from "elysia";
import { defineQueue } from "../../jobs/registry.ts";
import { Int } from "../../validation/schemas.ts";
import { notifyHolders } from "../notifications/fan-out.ts";

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
