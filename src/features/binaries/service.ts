import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import { isCompiledBinary } from "../../compiled.ts";
import type { Config } from "../../config.ts";
import { AppError, Invalid } from "../../errors.ts";

/** The platforms a release ships (scripts/lib/compile.ts), as `GET /client/depot?platform=` names them. */
export const CLIENT_PLATFORMS = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "windows-x64",
] as const;
export type ClientPlatform = (typeof CLIENT_PLATFORMS)[number];

export const isClientPlatform = (value: string): value is ClientPlatform =>
  (CLIENT_PLATFORMS as readonly string[]).includes(value);

/** This process's platform in those words (`win32` is `windows`). */
export const ownPlatform = () =>
  `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** depot-linux-arm64, depot-windows-x64.exe: the names `npm run build:all` writes into dist/. */
export const releaseFileName = (platform: ClientPlatform) =>
  `depot-${platform}${platform.startsWith("windows-") ? ".exe" : ""}`;

export interface ClientBinary {
  path: string;
  platform: string;
  /** The name a download saves it under: depot, or depot.exe for Windows. */
  fileName: string;
}

/**
 * The binary for `platform` (this server's own when null): the running executable when it is that
 * platform's, else `depot-<platform>` from CLIENT_BINARIES_DIR (a copy of dist/ after `npm run
 * build:all`), else null. Run from the sources there is no own binary.
 */
export function findClientBinary(config: Pick<Config, "clientBinariesDir">, platform: ClientPlatform | null) {
  const wanted = platform ?? ownPlatform();
  if (isCompiledBinary && wanted === ownPlatform()) {
    return { path: process.execPath, platform: wanted, fileName: fileNameFor(wanted) };
  }
  if (platform === null || config.clientBinariesDir === null) return null;
  const path = join(config.clientBinariesDir, releaseFileName(platform));
  return existsSync(path) && statSync(path).isFile()
    ? { path, platform, fileName: fileNameFor(platform) }
    : null;
}

/** The binary `?platform=` asks for: 422 for a platform depot does not ship, 404 when this server has none. */
export function clientBinaryFor(config: Pick<Config, "clientBinariesDir">, platform: string | undefined) {
  const asked = platform ?? null;
  if (asked !== null && !isClientPlatform(asked)) {
    throw new Invalid({ platform: [`The platform must be one of ${CLIENT_PLATFORMS.join(", ")}.`] });
  }
  const binary = findClientBinary(config, asked);
  if (!binary) {
    throw new AppError(
      404,
      asked === null
        ? "The depot client is served only by the compiled depot binary."
        : `This depot carries no binary for ${asked}.`,
    );
  }
  return binary;
}

/** A binary as a download, its headers naming platform, version and SHA-256; a proxy may keep it 5 minutes. */
export async function asDownload(binary: ClientBinary): Promise<Response> {
  return new Response(Bun.file(binary.path), {
    headers: {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${binary.fileName}"`,
      "cache-control": "public, max-age=300",
      "x-depot-version": pkg.version,
      "x-depot-platform": binary.platform,
      "x-depot-sha256": await sha256Of(binary.path),
    },
  });
}

const fileNameFor = (platform: string) => (platform.startsWith("windows-") ? "depot.exe" : "depot");

/** SHA-256 of each file, remembered while its size and mtime stay the same (each is ~100 MiB). */
const digests = new Map<string, { size: number; mtimeMs: number; hex: Promise<string> }>();

export function sha256Of(path: string): Promise<string> {
  const { size, mtimeMs } = statSync(path);
  const known = digests.get(path);
  if (known && known.size === size && known.mtimeMs === mtimeMs) return known.hex;
  const hex = new Promise<string>((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
  digests.set(path, { size, mtimeMs, hex });
  hex.catch(() => digests.delete(path));
  return hex;
}
