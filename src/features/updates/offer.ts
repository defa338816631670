import type { AppContext } from "../../context.ts";
import type { Arch, Artifact, Platform, ReleaseChannel, Version } from "../../db/schema/index.ts";
import type { FieldErrors } from "../../errors.ts";
import {
  type EligibleVersion,
  effectiveRollout,
  eligibleVersions,
  inRollout,
  type ReleaseFilter,
} from "../versions/eligible.ts";
import { compareSemver, parseSemver, type SemVer } from "../versions/semver.ts";
import type { FeedAccess } from "./access.ts";
import { cached } from "./feed-cache.ts";

/**
 * What every feed shares: the version a client is offered (features/versions/eligible.ts decides,
 * rollout included), whether it is newer than what the client runs, and where its files are served.
 */

export interface UpdateFilter {
  channel: ReleaseChannel;
  platform: Platform;
  arch: Arch;
}

/**
 * The version a client in `cohort` is offered on `filter`: the product's own releases (a benefit's
 * versions have feeds of their own in no updater), the newest eligible one whose rollout takes the
 * cohort. Null when nothing is.
 */
export async function offeredVersion(
  ctx: Pick<AppContext, "db">,
  access: FeedAccess,
  filter: UpdateFilter,
  cohort: string,
): Promise<EligibleVersion | null> {
  // One instant for the whole decision: a rollout schedule's step is applied as its time comes.
  const now = new Date();
  const candidates = await feedCandidates(ctx, access.product.id, filter);
  return (
    candidates.find(({ version }) => inRollout(cohort, version.id, effectiveRollout(version, now))) ?? null
  );
}

/**
 * The product's own versions `filter` may be offered (eligible.ts), newest first, from the
 * per-process cache (feed-cache.ts): every feed reads them through here, the rollout is applied per poll.
 */
export function feedCandidates(
  ctx: Pick<AppContext, "db">,
  productId: number,
  filter: Omit<ReleaseFilter, "benefitId">,
): Promise<EligibleVersion[]> {
  const { channel, platform, arch } = filter;
  return cached(ctx.db, productId, `${channel}:${platform}:${arch}`, () =>
    eligibleVersions(ctx, productId, { channel, platform, arch, benefitId: null }),
  );
}

/** The client's own version from a feed's URL or query; not semver: an error on `field` (a 422). */
export function currentVersion(value: string, field: string, errors: FieldErrors): SemVer | null {
  const parsed = value.length <= 256 ? parseSemver(value) : null;
  if (!parsed) errors.add(field, `The ${field} must be a semantic version (like 1.2.3 or 2.0.0-beta.1).`);
  return parsed;
}

/** Whether the offer is strictly newer than what the client runs (an equal or older one is no update). */
export const isNewer = (offer: EligibleVersion | null, current: SemVer): offer is EligibleVersion =>
  offer !== null && compareSemver(offer.semver, current) > 0;

/**
 * The version name as updaters compare it: without the leading `v` semver allows in depot's names
 * (Tauri's semver parser refuses it, and electron-updater finds the old blockmap by replacing this
 * string in the file's URL, where the file's own name carries it without one).
 */
export const clientVersion = (version: Pick<Version, "versionNumber">) =>
  version.versionNumber.trim().replace(/^[vV]/, "");

/**
 * `{APP_URL}/updates/{p}/files/{version_name}/{file_name}`: every feed's file URL. The version is in
 * the path because electron-updater's differential download finds the old blockmap by putting the
 * old version in place of the new one there.
 */
export const updateFileUrl = (appUrl: string, productId: number, version: Version, fileName: string) =>
  `${appUrl}/updates/${productId}/files/${pathSegment(version.versionNumber)}/${pathSegment(fileName)}`;

/**
 * A path segment, escaped as little as a URL allows: `+` stays as it is (a path may carry it), so a
 * name with build metadata (`1.2.0+5`) is found as it was written when electron-updater swaps versions.
 */
const pathSegment = (value: string) => encodeURIComponent(value).replace(/%2B/g, "+");

/** The first artifact that `prefer` accepts, else the best fit (eligible.ts lists best fits first). */
export function pickArtifact(artifacts: Artifact[], prefer: (artifact: Artifact) => boolean): Artifact {
  const [first] = artifacts;
  if (!first) throw new Error("an eligible version has at least one artifact");
  return artifacts.find(prefer) ?? first;
}

/** When the version was released: first published (a version from before drafts: when it was made). */
export const releasedAt = (version: Version): Date => version.publishedAt ?? version.createdAt;
