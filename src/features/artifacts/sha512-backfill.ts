import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { artifacts } from "../../db/schema/index.ts";
import { errorFields } from "../../log-errors.ts";
import { sha512Of } from "../uploads/service.ts";

/**
 * Files stored before artifacts existed have no SHA-512 (migration 0014 could not read them); reads
 * each once and records it, in the background at start-up, one file at a time so a large store does
 * not compete with downloads. A file that cannot be read (missing: its downloads answer 410) is
 * logged and tried again at the next start.
 */
export async function backfillSha512(ctx: Pick<AppContext, "db" | "releases" | "log">): Promise<number> {
  const missing = await ctx.db
    .select({ id: artifacts.id, storageKey: artifacts.storageKey })
    .from(artifacts)
    .where(isNull(artifacts.sha512));
  let filled = 0;
  for (const artifact of missing) {
    try {
      const sha512 = await sha512Of(ctx, artifact.storageKey);
      await ctx.db
        .update(artifacts)
        .set({ sha512 })
        .where(and(eq(artifacts.id, artifact.id), isNull(artifacts.sha512)));
      filled++;
    } catch (error) {
      ctx.log.warn("sha512 of a release file not computed", {
        artifact_id: artifact.id,
        storage_key: artifact.storageKey,
        error: errorFields(error),
      });
    }
  }
  if (filled > 0) ctx.log.info("sha512 of older release files recorded", { count: filled });
  return filled;
}
