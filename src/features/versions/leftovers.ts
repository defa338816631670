import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { uploads, versions } from "../../db/schema/index.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { LEFTOVER_AGE_MS } from "../../storage/leftovers.ts";

/** Which of `keys` a version or a finished upload points at. */
async function keptStorageKeys(ctx: Pick<AppContext, "db">, keys: string[]): Promise<Set<string>> {
  const [ofVersions, ofUploads] = await Promise.all([
    ctx.db.select({ key: versions.storageKey }).from(versions).where(inArray(versions.storageKey, keys)),
    ctx.db.select({ key: uploads.storageKey }).from(uploads).where(inArray(uploads.storageKey, keys)),
  ]);
  return new Set([...ofVersions, ...ofUploads].flatMap((row) => (row.key === null ? [] : [row.key])));
}

/**
 * Sweeps the release store's crash leftovers now (at start-up) and then every LEFTOVER_AGE_MS, in the
 * background; returns the function that stops it.
 */
export function sweepReleaseLeftovers(ctx: Pick<AppContext, "db" | "releases" | "log">): () => void {
  return everyInterval(ctx.log, LEFTOVER_AGE_MS, "release leftovers not swept", async () => {
    const removed = await ctx.releases.sweepLeftovers((keys) => keptStorageKeys(ctx, keys));
    if (removed.temporary > 0 || removed.orphans > 0)
      ctx.log.info("release leftovers removed", { ...removed });
  });
}
