import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";

/**
 * The release's SHA256SUMS and its signature (SHA256SUMS.minisig, `npm run build:all` with a release
 * key), which the operator copies into CLIENT_BINARIES_DIR with the binaries: scripts/install.sh
 * --server checks the signature against the release key it pins, then a binary's SHA-256 against
 * the list. A depot does not sign anything itself: it hands out what the release came with.
 */
export const RELEASE_CHECKSUMS = ["SHA256SUMS", "SHA256SUMS.minisig"] as const;
export type ReleaseChecksums = (typeof RELEASE_CHECKSUMS)[number];

export function releaseChecksums(
  config: Pick<Config, "clientBinariesDir">,
  name: ReleaseChecksums,
): Response {
  const path = config.clientBinariesDir === null ? null : join(config.clientBinariesDir, name);
  if (path === null || !existsSync(path) || !statSync(path).isFile()) {
    throw new AppError(404, `This depot carries no ${name}.`);
  }
  return new Response(Bun.file(path), {
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
