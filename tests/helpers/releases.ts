import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../src/context.ts";
import {
  type Arch,
  artifacts,
  type Platform,
  type ReleaseChannel,
  type Version,
  versions,
} from "../../src/db/schema/index.ts";
import { channelOfName } from "../../src/features/versions/semver.ts";
import { newStorageKey } from "../../src/storage/storage.ts";

/**
 * Releases with several files, as the update feeds read them: each file (and its blockmap) streamed
 * into the real release store, the version and its artifacts written to the tables as publishing
 * writes them. A factory, like tests/helpers/factories.ts: the publish and artifact routes are
 * tested by their own files; these tests are about what the feeds make of the result.
 */

export interface ReleaseFile {
  name: string;
  bytes: Uint8Array;
  platform: Platform;
  arch: Arch;
  /** The `.sig` text (minisign for Tauri, base64 Ed25519 for Sparkle). */
  signature?: string;
  /** electron-builder's `.blockmap` of the file, kept with it. */
  blockmap?: Uint8Array;
}

export interface Release {
  name: string;
  files: ReleaseFile[];
  /** Default: the channel the name implies. */
  channel?: ReleaseChannel;
  changelog?: string;
  changelogFormat?: "markdown" | "html";
  status?: "draft" | "published" | "yanked";
  critical?: boolean;
  rolloutPercentage?: number;
}

type Ctx = Pick<AppContext, "db" | "releases">;

async function store(ctx: Ctx, productId: number, bytes: Uint8Array) {
  const received = await ctx.releases.receive([bytes], Number.MAX_SAFE_INTEGER, newStorageKey(productId));
  await received.keepFor(async () => undefined);
  return received;
}

/** Stores `release` as a version of the whole product; returns the version row. */
export async function storeRelease(ctx: Ctx, productId: number, release: Release): Promise<Version> {
  const status = release.status ?? "published";
  const [version] = await ctx.db
    .insert(versions)
    .values({
      productId,
      versionNumber: release.name,
      title: `Release ${release.name}`,
      changelog: release.changelog ?? `Changes in ${release.name}.`,
      changelogFormat: release.changelogFormat ?? "markdown",
      channel: release.channel ?? channelOfName(release.name),
      status,
      critical: release.critical ?? false,
      rolloutPercentage: release.rolloutPercentage ?? 100,
      publishedAt: status === "draft" ? null : new Date(),
    })
    .returning();
  if (!version) throw new Error("no version row");
  for (const file of release.files) {
    const stored = await store(ctx, productId, file.bytes);
    const blockmap = file.blockmap ? await store(ctx, productId, file.blockmap) : null;
    await ctx.db.insert(artifacts).values({
      versionId: version.id,
      platform: file.platform,
      arch: file.arch,
      fileName: file.name,
      fileSize: stored.size,
      sha256: stored.sha256,
      sha512: createHash("sha512").update(file.bytes).digest("base64"),
      contentType: "application/octet-stream",
      storageKey: stored.key,
      signature: file.signature ?? null,
      blockmapStorageKey: blockmap?.key ?? null,
      blockmapSize: blockmap?.size ?? null,
      blockmapSha256: blockmap?.sha256 ?? null,
    });
  }
  return version;
}

/** Changes a version's release fields, as a vendor's PATCH does. */
export async function updateRelease(
  ctx: Pick<AppContext, "db">,
  versionId: number,
  fields: Partial<Pick<Version, "status" | "rolloutPercentage" | "critical" | "channel" | "yankReason">>,
) {
  await ctx.db
    .update(versions)
    .set({
      ...fields,
      ...(fields.status === "published"
        ? { publishedAt: sql`coalesce(${versions.publishedAt}, now())` }
        : {}),
    })
    .where(eq(versions.id, versionId));
}

/** The `Authorization` header updaters send. */
export const license = (key: string) => ({ authorization: `License ${key}` });
