import type { Artifact } from "../../db/schema/index.ts";
import { renderChangelog } from "./changelog.ts";
import type { ChangelogPreview } from "./schemas.ts";
import { firstArtifact, type VersionRow } from "./service.ts";
import { artifactDownloadUrl, downloadUrl } from "./urls.ts";

export const toArtifactJson = (artifact: Artifact, productId: number, appUrl: string) => ({
  id: artifact.id,
  version_id: artifact.versionId,
  platform: artifact.platform,
  arch: artifact.arch,
  file_name: artifact.fileName,
  file_size: artifact.fileSize,
  sha256: artifact.sha256,
  sha512: artifact.sha512,
  content_type: artifact.contentType,
  signature: artifact.signature,
  download_url: artifactDownloadUrl(appUrl, productId, artifact),
  created_at: artifact.createdAt.toISOString(),
});

/**
 * A version as SPEC shows it (`product_id` a string, `file_name` and `download_url` those of its first
 * artifact), with its release fields and every artifact.
 */
export const toVersionJson = (row: VersionRow, appUrl: string) => {
  const { version, benefit } = row;
  const first = firstArtifact(row);
  return {
    id: version.id,
    product_id: String(version.productId),
    option_id: benefit?.optionId ?? null,
    purchase_benefit_id: benefit?.id ?? null,
    benefit_name: benefit?.name ?? null,
    version_number: version.versionNumber,
    title: version.title,
    changelog: version.changelog,
    changelog_format: version.changelogFormat,
    download_url: downloadUrl(appUrl, version),
    file_name: first.fileName,
    file_size: first.fileSize,
    sha256: first.sha256,
    downloads: String(version.downloads),
    channel: version.channel,
    status: version.status,
    critical: version.critical,
    rollout_percentage: version.rolloutPercentage,
    rollout_schedule: version.rolloutSchedule,
    yank_reason: version.yankReason,
    published_at: version.publishedAt?.toISOString() ?? null,
    artifacts: row.artifacts.map((artifact) => toArtifactJson(artifact, version.productId, appUrl)),
    created_at: version.createdAt.toISOString(),
    updated_at: version.updatedAt.toISOString(),
  };
};

/** `{ data: version }`, what the versions API answers for one version, once it is read. */
export const toVersionData = (appUrl: string) => async (row: VersionRow | Promise<VersionRow>) => ({
  data: toVersionJson(await row, appUrl),
});

/** A changelog rendered to sanitised HTML, Markdown unless the body says HTML. */
export const toChangelogHtmlJson = (
  { changelog, changelog_format }: typeof ChangelogPreview.static,
  appUrl: string,
) => ({ data: { html: renderChangelog(changelog, changelog_format ?? "markdown", appUrl) } });
