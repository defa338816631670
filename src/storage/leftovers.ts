import { readdir, rm, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { SweepResult } from "./storage.ts";

/**
 * A file untouched for this long is no upload in progress: an upload writes continuously (a silent
 * connection is dropped after 30 s), and a kept file gets its row within moments of its rename.
 */
export const LEFTOVER_AGE_MS = 60 * 60 * 1000;

/**
 * A backup's hard links to the files it archives (`STORAGE_DIR/.backup-<id>/`) live as long as the
 * backup; one untouched for a day was cut off (the process killed), and would keep deleted versions'
 * files on disk.
 */
export const BACKUP_STAGING_AGE_MS = 24 * 60 * 60 * 1000;

/** Where kept files live: release files of versions, and finished resumable uploads. */
export const KEPT_PREFIXES = ["products", "uploads"] as const;

/**
 * Removes what a crash can leave in the release store (`temporary`: partial files in `.incoming/` and
 * cut-off backups' staging links; `orphans`: files no row points at). `kept` tells which of the given storage keys
 * a version or an upload row points at; files younger than LEFTOVER_AGE_MS are never touched, so an upload or a
 * publish in flight (here or on another instance sharing STORAGE_DIR) is left alone.
 */
export async function sweepDiskLeftovers(
  store: { root: string; incoming: string; remove(key: string): Promise<void> },
  kept: (keys: string[]) => Promise<Set<string>>,
  now = Date.now(),
): Promise<SweepResult> {
  const stale = async (path: string) => now - (await stat(path)).mtimeMs > LEFTOVER_AGE_MS;
  const result: SweepResult = { temporary: 0, orphans: 0 };

  for (const path of await filesUnder(store.incoming)) {
    if (await stale(path)) {
      await rm(path, { force: true });
      result.temporary++;
    }
  }

  for (const name of await readdir(store.root)) {
    if (!name.startsWith(".backup-")) continue;
    const staging = join(store.root, name);
    if (now - (await stat(staging)).mtimeMs > BACKUP_STAGING_AGE_MS) {
      await rm(staging, { recursive: true, force: true });
      result.temporary++;
    }
  }

  const candidates: string[] = [];
  for (const kept of KEPT_PREFIXES) {
    for (const path of await filesUnder(join(store.root, kept)))
      if (await stale(path)) candidates.push(relative(store.root, path).split(sep).join("/"));
  }
  result.orphans = await removeOrphans(candidates, kept, (key) => store.remove(key));
  return result;
}

/** Removes those of `candidates` no version points at, asking `kept` a thousand keys at a time. */
export async function removeOrphans(
  candidates: string[],
  kept: (keys: string[]) => Promise<Set<string>>,
  remove: (key: string) => Promise<void>,
): Promise<number> {
  let removed = 0;
  for (let i = 0; i < candidates.length; i += 1000) {
    const batch = candidates.slice(i, i + 1000);
    const known = await kept(batch);
    for (const key of batch) {
      if (known.has(key)) continue;
      await remove(key);
      removed++;
    }
  }
  return removed;
}

async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
