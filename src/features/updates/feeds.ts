import type { AppContext } from "../../context.ts";
import type { Artifact, ReleaseChannel } from "../../db/schema/index.ts";
import { RELEASE_CHANNELS } from "../../db/schema/index.ts";
import { FieldErrors, NotFound } from "../../errors.ts";
import { renderChangelog } from "../versions/changelog.ts";
import { effectiveRollout, inRollout } from "../versions/eligible.ts";
import { compareSemver } from "../versions/semver.ts";
import type { OpenFeed } from "./access.ts";
import { appcastXml } from "./appcast.ts";
import { clientArch, electronChannelFile, fitsBundle, tauriTarget } from "./client-names.ts";
import { electronYml } from "./electron-yml.ts";
import type { SquirrelUpdateJson, TauriUpdateJson } from "./json.ts";
import {
  clientVersion,
  currentVersion,
  feedCandidates,
  isNewer,
  offeredVersion,
  pickArtifact,
  releasedAt,
  updateFileUrl,
} from "./offer.ts";

/**
 * The feeds, one function per updater: each counts the request, asks offer.ts what the client is
 * offered, and writes it in the updater's own format. `access` (access.ts) has already said the
 * license may read the product's feeds; `cohort` is what the staged rollout knows the client by.
 */

/** What a feed's answer is sent with: the route's `set`. */
interface Reply {
  headers: Record<string, string | number>;
  status?: number | string;
}

/**
 * A feed's answer in its own format (`contentType`), once it is written; a refusal keeps the JSON
 * error's. No cache keeps either: every `/updates` answer is `no-store` (http/cache-control.ts).
 */
export async function inFormat<T>(set: Reply, contentType: string, feed: Promise<T>): Promise<T> {
  const body = await feed;
  set.headers["content-type"] = contentType;
  return body;
}

/** An update check's answer: the update, or 204 with no body when nothing newer is offered. */
export async function updateOrNothing<T>(set: Reply, check: Promise<T | null>): Promise<T | ""> {
  const update = await check;
  if (update === null) set.status = 204;
  return update ?? "";
}

type Ctx = Pick<AppContext, "db" | "config" | "updateChecks">;

/** A `?channel=` of a feed URL; absent: stable. */
function channelOf(value: string | undefined, errors: FieldErrors): ReleaseChannel {
  if (value === undefined) return "stable";
  if ((RELEASE_CHANNELS as readonly string[]).includes(value)) return value as ReleaseChannel;
  errors.add("channel", `The channel must be one of ${RELEASE_CHANNELS.join(", ")}.`);
  return "stable";
}

/** electron-updater's `generic` provider: `{channel}{suffix}.yml`, as electron-builder writes it. */
export async function electronFeed(
  ctx: Ctx,
  { access, cohort, reportedVersion }: OpenFeed,
  fileName: string,
) {
  const file = electronChannelFile(fileName);
  // electron-updater reports a 404 as a missing channel file, which is what an unknown name is.
  if (!file) throw new NotFound("Update channel file");
  ctx.updateChecks.add({
    productId: access.product.id,
    feed: "electron",
    channel: file.channel,
    platform: file.platform,
    currentVersion: reportedVersion,
    client: cohort,
  });
  const offer = await offeredVersion(ctx, access, file, cohort);
  if (!offer) throw new NotFound("Update");
  const { version } = offer;
  return electronYml({
    version: clientVersion(version),
    files: offer.artifacts.map((artifact) => ({
      url: updateFileUrl(ctx.config.appUrl, access.product.id, version, artifact.fileName),
      sha512: artifact.sha512,
      sha256: artifact.sha256,
      size: artifact.fileSize,
    })),
    releaseDate: releasedAt(version),
    releaseNotes: version.changelog,
  });
}

/**
 * Tauri v2: `/tauri/{target}/{arch}/{current_version}` → the update, or null (204) when nothing newer
 * is offered. `signature` is the artifact's `.sig` text, which Tauri checks with the app's public key.
 */
export async function tauriFeed(
  ctx: Ctx,
  { access, cohort }: OpenFeed,
  input: { target: string; arch: string; current_version: string },
  channelName: string | undefined,
): Promise<TauriUpdateJson | null> {
  const errors = new FieldErrors();
  const target = tauriTarget(input.target);
  if (!target)
    errors.add("target", "The target must be linux, darwin or windows, optionally with -<bundle>.");
  const arch = clientArch(input.arch);
  if (!arch || arch === "universal") errors.add("arch", "The arch must be x86_64, aarch64, i686 or armv7.");
  const channel = channelOf(channelName, errors);
  const current = currentVersion(input.current_version, "current_version", errors);
  errors.throwIfAny();
  if (!target || !arch || !current) throw new Error("checked above");
  ctx.updateChecks.add({
    productId: access.product.id,
    feed: "tauri",
    channel,
    platform: target.platform,
    currentVersion: input.current_version,
    client: cohort,
  });
  const offer = await offeredVersion(ctx, access, { channel, platform: target.platform, arch }, cohort);
  if (!isNewer(offer, current)) return null;
  const { version } = offer;
  // The bundle's own file, signed if one is (Tauri refuses an update without a signature).
  const artifact = pickArtifact(
    offer.artifacts,
    (a) => fitsBundle(a.fileName, target.bundle) && !!a.signature,
  );
  return {
    version: clientVersion(version),
    notes: version.changelog,
    pub_date: releasedAt(version).toISOString(),
    url: updateFileUrl(ctx.config.appUrl, access.product.id, version, artifact.fileName),
    signature: artifact.signature ?? "",
  };
}

/** Squirrel.Mac installs from a zip. */
const isZip = (artifact: Artifact) => artifact.fileName.toLowerCase().endsWith(".zip");

/** Squirrel.Mac (Electron's built-in autoUpdater on macOS): 204, or `{url, name, notes, pub_date}`. */
export async function squirrelFeed(
  ctx: Ctx,
  { access, cohort }: OpenFeed,
  input: { arch: string; current_version: string },
  channelName: string | undefined,
): Promise<SquirrelUpdateJson | null> {
  const errors = new FieldErrors();
  const arch = clientArch(input.arch);
  if (!arch) errors.add("arch", "The arch must be x86_64, aarch64 or universal (or x64, arm64).");
  const channel = channelOf(channelName, errors);
  const current = currentVersion(input.current_version, "current_version", errors);
  errors.throwIfAny();
  if (!arch || !current) throw new Error("checked above");
  ctx.updateChecks.add({
    productId: access.product.id,
    feed: "squirrel",
    channel,
    platform: "darwin",
    currentVersion: input.current_version,
    client: cohort,
  });
  const offer = await offeredVersion(ctx, access, { channel, platform: "darwin", arch }, cohort);
  if (!isNewer(offer, current)) return null;
  const { version } = offer;
  const artifact = pickArtifact(offer.artifacts, isZip);
  return {
    url: updateFileUrl(ctx.config.appUrl, access.product.id, version, artifact.fileName),
    name: version.versionNumber,
    notes: version.changelog,
    pub_date: releasedAt(version).toISOString(),
  };
}

/** Archives Sparkle installs from, in the order it is offered them. */
const SPARKLE_ENDINGS = [".zip", ".dmg", ".tar.xz", ".tar.bz2", ".tar.gz", ".pkg"];
const sparkleRank = (artifact: Artifact) => {
  const rank = SPARKLE_ENDINGS.findIndex((ending) => artifact.fileName.toLowerCase().endsWith(ending));
  return rank < 0 ? SPARKLE_ENDINGS.length : rank;
};

/** The most items an appcast lists: Sparkle takes the newest it may, so old ones only cost bytes. */
const APPCAST_ITEMS = 20;

/**
 * Sparkle 2's appcast: every channel at once (Sparkle offers an item with a `sparkle:channel` only to
 * apps that allow that channel), each version only if its rollout takes the client, newest first.
 */
export async function sparkleFeed(ctx: Ctx, { access, cohort, reportedVersion }: OpenFeed, feedUrl: string) {
  ctx.updateChecks.add({
    productId: access.product.id,
    feed: "sparkle",
    channel: "",
    platform: "darwin",
    currentVersion: reportedVersion,
    client: cohort,
  });
  const filter = { platform: "darwin", arch: "any" } as const;
  // `alpha` takes every channel but `dev`, which stands apart (semver.ts channelsFor).
  const [released, dev] = await Promise.all([
    feedCandidates(ctx, access.product.id, { ...filter, channel: "alpha" }),
    feedCandidates(ctx, access.product.id, { ...filter, channel: "dev" }),
  ]);
  const now = new Date();
  const offered = [...released, ...dev]
    .filter(({ version }) => inRollout(cohort, version.id, effectiveRollout(version, now)))
    .sort((a, b) => compareSemver(b.semver, a.semver) || b.version.id - a.version.id)
    .slice(0, APPCAST_ITEMS);
  return appcastXml({
    title: access.product.name,
    link: feedUrl,
    items: offered.map(({ version, artifacts }) => {
      const artifact = [...artifacts].sort((a, b) => sparkleRank(a) - sparkleRank(b))[0] as Artifact;
      return {
        version: clientVersion(version),
        channel: version.channel,
        critical: version.critical,
        notesHtml: renderChangelog(version.changelog, version.changelogFormat, ctx.config.appUrl),
        publishedAt: releasedAt(version),
        enclosure: {
          url: updateFileUrl(ctx.config.appUrl, access.product.id, version, artifact.fileName),
          length: artifact.fileSize,
          edSignature: artifact.signature,
        },
      };
    }),
  });
}
