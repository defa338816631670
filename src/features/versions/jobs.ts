import { t } from "elysia";
import { Int } from "../../http/schemas.ts";
import { defineQueue } from "../../jobs/registry.ts";

/**
 * Enqueued in the same transaction that inserts the version (the outbox, DESIGN.md §8). Holder
 * notifications consume it; until they exist the jobs wait in the queue, so none is lost.
 */
export const versionPublished = defineQueue({
  name: "version.published",
  payload: t.Object({ version_id: Int({ minimum: 1 }) }),
  options: { retryLimit: 10, retryBackoff: true },
});
