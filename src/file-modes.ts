import { chmodSync, lstatSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "./log.ts";

/**
 * What depot creates in DATA_DIR (and STORAGE_DIR) is its own user's alone (docs/operators.md: File modes):
 * the database holds password hashes, sessions and license keys, app.key seals the signing key.
 * PGlite's initdb writes its files 0666 whatever the umask: the embedded database tightens them as
 * soon as it is made (db/client.ts) and a restore as soon as it is loaded (backup/restore.ts), and the
 * private DATA_DIR keeps them from others either way.
 */
export const PRIVATE_DIRECTORY = 0o700;
export const PRIVATE_FILE = 0o600;

/** What `tightenTree` changed, and the entries it was not allowed to change (or read). */
export interface Tightened {
  directories: number;
  files: number;
  refused: { path: string; code: string }[];
}

/**
 * Takes group and other permissions away from `root` and from every directory and regular file
 * below it (their owner's stay as they are: 0755 becomes 0700, 0666 becomes 0600). `root` comes
 * first, so nobody else can reach what is below while it is walked; `root` itself may be a symbolic
 * link to the directory (an operator's choice), but links below it are neither followed nor changed.
 * An entry this process may not change (another account's) or read is listed in `refused` and left
 * as it is: it never stops the walk.
 */
export function tightenTree(root: string): Tightened {
  const result: Tightened = { directories: 0, files: 0, refused: [] };
  const pending = [realpathSync(root)];
  const tighten = (path: string, isDirectory: boolean, mode: number) => {
    if ((mode & 0o077) === 0) return;
    chmodSync(path, mode & 0o7700);
    if (isDirectory) result.directories++;
    else result.files++;
  };
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    try {
      const stat = lstatSync(path);
      if (!stat.isDirectory() && !stat.isFile()) continue;
      tighten(path, stat.isDirectory(), stat.mode);
      if (!stat.isDirectory()) continue;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (entry.isDirectory() || entry.isFile()) pending.push(join(path, entry.name));
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unknown";
      if (code !== "ENOENT") result.refused.push({ path, code });
    }
  }
  return result;
}

/** How many refused entries a log line names; the count says how many there were. */
const NAMED_REFUSALS = 10;

/**
 * Keeps `dir` (DATA_DIR, or STORAGE_DIR elsewhere) private at start-up. One found open to other
 * accounts — an installation from before depot kept it private, or one loosened since — is
 * tightened with everything in it, once, and the change is logged; from then on it is private and
 * this costs one `stat`, however many release files it holds.
 */
export function keepPrivate(variable: string, dir: string, log: Logger): void {
  if ((statSync(dir).mode & 0o077) === 0) return;
  const started = performance.now();
  const { directories, files, refused } = tightenTree(dir);
  log.info("file modes tightened", {
    variable,
    path: dir,
    directories,
    files,
    duration_ms: Math.round(performance.now() - started),
  });
  if (refused.length > 0) {
    log.warn("file modes not tightened", {
      variable,
      path: dir,
      count: refused.length,
      entries: refused.slice(0, NAMED_REFUSALS),
    });
  }
}
