import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { PRIVATE_DIRECTORY, PRIVATE_FILE } from "../file-modes.ts";
import { UsageError } from "./command.ts";

type Env = Record<string, string | undefined>;

/** What `depot login` keeps: the server and a token for it (used for nothing else). */
export interface StoredLogin {
  server: string;
  token: string;
}

/**
 * depot's directory in the platform's configuration directory, as `gh` keeps its hosts.yml:
 * DEPOT_CONFIG_DIR when set; %APPDATA%\depot on Windows; ~/Library/Application Support/depot on
 * macOS; $XDG_CONFIG_HOME/depot (default ~/.config/depot) elsewhere.
 */
export function configDirectory(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.DEPOT_CONFIG_DIR) return env.DEPOT_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "depot");
  if (platform === "darwin") return join(home, "Library", "Application Support", "depot");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "depot");
}

export const loginFile = (env: Env) => join(configDirectory(env), "login.json");

/** The stored login, or null when there is none; a file that is not one is a usage error naming it. */
export function readLogin(env: Env): StoredLogin | null {
  const file = loginFile(env);
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<StoredLogin>;
    if (typeof parsed.server === "string" && typeof parsed.token === "string") {
      return { server: parsed.server, token: parsed.token };
    }
  } catch {
    // reported below
  }
  throw new UsageError(`${file} is not a depot login; run depot login again or delete it`, false);
}

/**
 * Written whole and then renamed into place, 0600 in a 0700 directory from the first byte: the
 * token is a credential, and a half-written file must never be read as one.
 */
export function writeLogin(env: Env, login: StoredLogin): string {
  const directory = configDirectory(env);
  mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY });
  const file = loginFile(env);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(login, null, 2)}\n`, { mode: PRIVATE_FILE });
  chmodSync(partial, PRIVATE_FILE);
  renameSync(partial, file);
  return file;
}

/** Removes the stored login; whether there was one. */
export function removeLogin(env: Env): boolean {
  const file = loginFile(env);
  if (!existsSync(file)) return false;
  rmSync(file);
  return true;
}
