import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { PRIVATE_FILE } from "./file-modes.ts";

/**
 * APP_KEY when set; otherwise the key in `$DATA_DIR/app.key`, generated on first use so a single
 * instance works with no configuration. Several instances must share an explicit APP_KEY.
 */
export function resolveAppKey(config: Config): string {
  if (config.appKey) return config.appKey;
  const path = join(config.dataDir, "app.key");
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  writeFileSync(path, `${key}\n`, { flag: "wx", mode: PRIVATE_FILE });
  chmodSync(path, PRIVATE_FILE);
  return key;
}
