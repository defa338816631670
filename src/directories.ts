import { accessSync, constants, mkdirSync } from "node:fs";
import { type Config, ConfigError } from "./config.ts";

/**
 * Creates DATA_DIR (app.key, the embedded database) and STORAGE_DIR (release files, unless they live
 * in a bucket: STORAGE_URL) and checks that both can be written. Only commands that open the database or the release store call it: parsing
 * the configuration writes nothing, so `depot healthcheck` leaves the disk alone.
 */
export function prepareDirectories(config: Config): void {
  usableDirectory("DATA_DIR", config.dataDir);
  if (!config.objectStorage) usableDirectory("STORAGE_DIR", config.storageDir);
}

/** Creates `path` if needed; a directory that cannot be made or written is a ConfigError naming `variable`. */
export function usableDirectory(variable: string, path: string): string {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.R_OK | constants.W_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(variable, `directory ${path} is not usable (${reason})`);
  }
  return path;
}
