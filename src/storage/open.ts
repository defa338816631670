import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { ReleaseStore } from "./releases.ts";
import { S3ReleaseStore } from "./s3.ts";
import type { ReleaseStorage } from "./storage.ts";

/** The configured release store: the bucket of STORAGE_URL, or STORAGE_DIR on local disk. */
export function openReleaseStorage(config: Config, log: Logger): ReleaseStorage {
  return config.objectStorage
    ? new S3ReleaseStore(config.objectStorage, log)
    : new ReleaseStore(config.storageDir, log);
}
