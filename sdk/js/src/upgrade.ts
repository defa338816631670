import { type Core, notAnAnswer } from "./core.js";
import { aboutSomethingElse, sameId } from "./subject.js";
import type { Artifact, Release, Upgrade } from "./types.js";

export interface UpgradeOptions {
  /** windows, darwin or linux (default any). */
  platform?: string;
  /** x86_64, aarch64, i686, armv7 or universal (default any). */
  arch?: string;
  /** stable (default), rc, beta, alpha or dev. */
  channel?: string;
  /** Who this install is in a staged rollout (electron-updater's x-user-staging-id); default the license key. */
  stagingId?: string;
}

/**
 * GET /api/v1/products/{p}/upgrade: the newest version offered to this app, decided as depot's update
 * feeds decide (channels, yanks, staged rollouts), verified like a validation and checked to be about
 * this product, platform, arch, channel and current version.
 */
export async function checkForUpdate(
  core: Core,
  key: string | null,
  currentVersion: string,
  options: UpgradeOptions,
): Promise<Upgrade> {
  const asked = {
    platform: options.platform ?? "any",
    arch: options.arch ?? "any",
    channel: options.channel ?? "stable",
  };
  const headers: Record<string, string> = {};
  if (key !== null) headers.authorization = `License ${key}`;
  if (options.stagingId !== undefined) headers["x-user-staging-id"] = options.stagingId;
  const exchange = await core.ask(`/api/v1/products/${core.settings.productId}/upgrade`, (nonce) => {
    const query = new URLSearchParams({ version: currentVersion, ...asked, nonce });
    return { method: "GET", headers, query: `?${query}` };
  });
  if (exchange.answer.status !== 200) throw core.refusal(exchange);
  const { body, created } = exchange.answer;
  if (typeof body.upgrade !== "boolean") throw notAnAnswer("an upgrade check");
  // A relay could hand over depot's genuine "no upgrade" for another product or platform, and keep a
  // security release from this app.
  if (!sameId(body.product_id, core.settings.productId)) throw aboutSomethingElse("product");
  for (const field of ["platform", "arch", "channel"] as const) {
    if (body[field] !== asked[field]) throw aboutSomethingElse(field);
  }
  if (body.current !== currentVersion) throw aboutSomethingElse("current version");
  const release = body.version as Release | null;
  if (body.upgrade && (typeof release?.version_number !== "string" || !Array.isArray(release.artifacts))) {
    throw notAnAnswer("an upgrade check");
  }
  return {
    upgrade: body.upgrade,
    current: currentVersion,
    version: body.upgrade && release ? release.version_number : null,
    release: body.upgrade ? release : null,
    artifacts: body.upgrade && release ? (release.artifacts as Artifact[]) : [],
    signedAt: new Date(created * 1000),
  };
}
