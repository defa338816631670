import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { artifacts, uploads } from "../../db/schema/index.ts";
import { everyInterval } from "../../jobs/periodic.ts";
import { LEFTOVER_AGE_MS } from "../../storage/leftovers.ts";

/** Which of `keys` an artifact (its file or its blockmap) or a finished upload points at. */
async function keptStorageKeys(ctx: Pick<AppContext, "db">, keys: string[]): Promise<Set<string>> {
  const [ofArtifacts, ofBlockmaps, ofUploads] = await Promise.all([
    ctx.db.select({ key: artifacts.storageKey }).from(artifacts).where(inArray(artifacts.storageKey, keys)),
    ctx.db
      .select({ key: artifacts.blockmapStorageKey })
      .from(artifacts)
      .where(inArray(artifacts.blockmapStorageKey, keys)),
    ctx.db.select({ key: uploads.storageKey }).from(uploads).where(inArray(uploads.storageKey, keys)),
  ]);
  return new Set(
    [...ofArtifacts, ...ofBlockmaps, ...ofUploads].flatMap((row) => (row.key === null ? [] : [row.key])),
  );
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
