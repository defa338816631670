import { t } from "elysia";
import type { Artifact } from "../../db/schema/index.ts";
import { ARCHES, PLATFORMS } from "../../db/schema/release-enums.ts";
import { Int } from "../../validation/schemas.ts";
import { artifactDownloadUrl } from "../versions/urls.ts";
import { kindPlatform } from "./file-names.ts";

const DateTime = t.String({ format: "date-time" });

/** One file of a version, for one platform and architecture. */
export const ArtifactJson = t.Object({
  id: Int(),
  version_id: Int(),
  platform: t.UnionEnum([...PLATFORMS]),
  arch: t.UnionEnum([...ARCHES]),
  platform_inferred: t.Boolean({
    description:
      "the request named no platform: depot read it from the file's name (`any` when the name says none)",
  }),
  arch_inferred: t.Boolean({ description: "the request named no arch: depot read it from the file's name" }),
  platform_neutral: t.Boolean({
    description:
      "every platform's feed offers the file: it is stored under `any` and is no one platform's kind (a `.jar`, a `.zip` of scripts; an `.exe`, `.dmg` or `.deb` never is)",
  }),
  file_name: t.String(),
  updaters_only: t.Boolean({
    description:
      "for updaters only (electron's `-mac.zip`, Tauri's `.app.tar.gz`): the feeds offer it, the download pages and e-mails' links do not",
  }),
  file_size: Int(),
  sha256: t.String({ pattern: "^[0-9a-f]{64}$" }),
  sha512: t.Union([t.String({ description: "base64, as electron-updater checks it" }), t.Null()], {
    description:
      "null only for a file stored before artifacts existed, until depot has read it once at start-up",
  }),
  content_type: t.String(),
  signature: t.Union([t.String(), t.Null()], { description: "the `.sig` text sent with the file" }),
  download_url: t.String(),
  created_at: DateTime,
});

export const toArtifactJson = (artifact: Artifact, productId: number, appUrl: string) => ({
  id: artifact.id,
  version_id: artifact.versionId,
  platform: artifact.platform,
  arch: artifact.arch,
  platform_inferred: artifact.platformInferred,
  arch_inferred: artifact.archInferred,
  platform_neutral: artifact.platform === "any" && kindPlatform(artifact.fileName) === null,
  file_name: artifact.fileName,
  updaters_only: artifact.updatersOnly,
  file_size: artifact.fileSize,
  sha256: artifact.sha256,
  sha512: artifact.sha512,
  content_type: artifact.contentType,
  signature: artifact.signature,
  download_url: artifactDownloadUrl(appUrl, productId, artifact),
  created_at: artifact.createdAt.toISOString(),
});
