import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config.ts";
import { PRIVATE_DIRECTORY, tightenTree } from "../file-modes.ts";

/** Whether `path` holds an initialised PGlite (PostgreSQL) data directory. */
export const isInitialised = (path: string) => existsSync(join(path, "PG_VERSION"));

/**
 * Creates the embedded database in `path` from `archive` (initial-data.ts): an initialised, migrated
 * data directory, so no initdb runs here. initdb left the process that ran it at about 1 GiB of RSS
 * for good and took most of a first start; unpacking takes a fraction of a second.
 *
 * The archive is unpacked beside `path`, made private (0700 and 0600: unpacked, its entries are
 * readable by others) and renamed into place: a first start that is interrupted leaves no half a
 * database, only the unpacking directory, which the next one removes. The caller holds the data
 * directory's lock.
 */
export async function initialise(path: string, archive: string): Promise<void> {
  if (existsSync(path) && readdirSync(path).length > 0) {
    throw new ConfigError(
      "DATA_DIR",
      `${path} holds files but no database (no PG_VERSION): move it away and start again`,
    );
  }
  const unpacking = `${path}.unpacking`;
  rmSync(unpacking, { recursive: true, force: true });
  mkdirSync(unpacking, { mode: PRIVATE_DIRECTORY });
  try {
    await new Bun.Archive(await Bun.file(archive).bytes()).extract(unpacking);
    tightenTree(unpacking);
    if (existsSync(path)) rmdirSync(path); // empty: checked above
    renameSync(unpacking, path);
  } catch (error) {
    rmSync(unpacking, { recursive: true, force: true });
    throw error;
  }
}
