import { t } from "elysia";
import { RELEASE_CHANNELS, VERSION_STATUSES } from "../../db/schema/release-enums.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { dataOf } from "../../http/schemas.ts";
import { Int } from "../../validation/schemas.ts";
import { ArtifactJson, toArtifactJson } from "../artifacts/json.ts";
import { renderChangelog } from "./changelog.ts";
import { peopleFile, type VersionRow } from "./rows.ts";
import type { ChangelogPreview } from "./schemas.ts";
import { parseSemver } from "./semver.ts";
import { downloadUrl } from "./urls.ts";

const DateTime = t.String({ format: "date-time" });

/**
 * A version (note `product_id` is a string) with `changelog_format`, `file_size`, `sha256`, and
 * `downloads`, a count as a decimal string like the product's.
 */
export const VersionJson = t.Object({
  id: Int(),
  product_id: t.String(),
  option_id: t.Union([Int(), t.Null()]),
  purchase_benefit_id: t.Union([Int(), t.Null()]),
  benefit_name: t.Union([t.String(), t.Null()]),
  version_number: t.String(),
  title: t.String(),
  changelog: t.String(),
  changelog_format: t.UnionEnum(["markdown", "html"]),
  download_url: t.String(),
  file_name: t.String(),
  file_size: Int(),
  sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
  downloads: t.String({ pattern: "^\\d+$", description: "whole downloads of the file, as a decimal string" }),
  channel: t.UnionEnum([...RELEASE_CHANNELS]),
  status: t.UnionEnum([...VERSION_STATUSES]),
  critical: t.Boolean(),
  rollout_percentage: Int({ minimum: 0, maximum: 100 }),
  rollout_schedule: t.Union([t.Array(t.Object({ at: DateTime, percentage: Int() })), t.Null()], {
    description: "steps that raise the rollout from their time on; null: none",
  }),
  yank_reason: t.Union([t.String(), t.Null()]),
  published_at: t.Union([DateTime, t.Null()], { description: "null while a draft" }),
  artifacts: t.Array(ArtifactJson, {
    description:
      "its files, the first added first; `file_name` and `download_url` describe the first one not for updaters only (else the first)",
  }),
  created_at: DateTime,
  updated_at: DateTime,
});

/**
 * A version as SPEC shows it (`product_id` a string, `file_name` and `download_url` those of the file
 * people download, rows.ts `peopleFile`), with its release fields and every artifact.
 */
export const toVersionJson = (row: VersionRow, appUrl: string) => {
  const { version, benefit } = row;
  const first = peopleFile(row);
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

export const VersionPageJson = simplePageOf(VersionJson);

/** `{ data: version }`, what the versions API answers for one version, once it is read. */
export const toVersionData = (appUrl: string) => async (row: VersionRow | Promise<VersionRow>) => ({
  data: toVersionJson(await row, appUrl),
});

/**
 * What a publish answer adds when the version was kept but something about it deserves the vendor's
 * eye, in the shape of a 422's `errors` (by field, a list of sentences). Absent when there is nothing.
 */
export const PublishWarningsJson = t.Object(
  { version_name: t.Optional(t.Array(t.String())) },
  {
    description:
      "present only when there is something to say: `version_name` when the name is not semver, so no update feed ever offers the version",
  },
);

/** The publish answer: the version, and its warnings when there are any. */
export const PublishedVersionJson = t.Object({
  data: VersionJson,
  warnings: t.Optional(PublishWarningsJson),
});

/** The warnings of a published version: a name that is not semver is invisible to every update feed. */
export function publishWarnings(versionName: string): typeof PublishWarningsJson.static | undefined {
  if (parseSemver(versionName) !== null) return undefined;
  return {
    version_name: [
      `${versionName} is not a semantic version (like 1.2.0 or 2.0.0-beta.1): it can be listed and downloaded, but no update feed will ever offer it.`,
    ],
  };
}

/** `{ data, warnings? }`, what the publish routes answer. */
export const toPublishedVersionData = (appUrl: string) => async (row: VersionRow) => {
  const warnings = publishWarnings(row.version.versionNumber);
  return { data: toVersionJson(row, appUrl), ...(warnings ? { warnings } : {}) };
};

export const ChangelogHtmlJson = dataOf(t.Object({ html: t.String() }));

/** A changelog rendered to sanitised HTML, Markdown unless the body says HTML. */
export const toChangelogHtmlJson = (
  { changelog, changelog_format }: typeof ChangelogPreview.static,
  appUrl: string,
) => ({ data: { html: renderChangelog(changelog, changelog_format ?? "markdown", appUrl) } });
