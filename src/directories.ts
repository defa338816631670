import { accessSync, constants, mkdirSync } from "node:fs";
import { type Config, ConfigError } from "./config.ts";
import { keepPrivate, PRIVATE_DIRECTORY } from "./file-modes.ts";
import type { Logger } from "./log.ts";

/**
 * Creates DATA_DIR (app.key, the embedded database) and STORAGE_DIR (release files, unless they live
 * in a bucket: STORAGE_URL), checks that both can be written and keeps both private to this user
 * (file-modes.ts). Only commands that open the database or the release store call it: parsing the
 * configuration writes nothing, so `depot healthcheck` leaves the disk alone.
 */
export function prepareDirectories(config: Config, log: Logger): void {
  privateDirectory("DATA_DIR", config.dataDir, log);
  if (!config.objectStorage) privateDirectory("STORAGE_DIR", config.storageDir, log);
}

/** A usable directory, private to this user: created 0700, tightened at start when found open. */
export function privateDirectory(variable: string, path: string, log: Logger): string {
  usableDirectory(variable, path);
  keepPrivate(variable, path, log);
  return path;
}

/**
 * Creates `path` (0700, with any missing parents) if needed; a directory that cannot be made or
 * written is a ConfigError naming `variable`.
 */
function usableDirectory(variable: string, path: string): string {
  try {
    mkdirSync(path, { recursive: true, mode: PRIVATE_DIRECTORY });
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(variable, `directory ${path} is not usable (${reason})`);
  }
  return path;
}
