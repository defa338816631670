import { asc, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Artifact, artifacts } from "../../db/schema/index.ts";
import { isSet } from "../../validation/schemas.ts";
import type { UploadedFile } from "../versions/upload.ts";
import { forUpdatersOnly, targetOf } from "./file-names.ts";
import type { ArtifactUploadFields } from "./schemas.ts";

/** Every artifact of the versions, each version's in the order they were added (the first one first). */
export async function artifactsOf(
  ctx: Pick<AppContext, "db">,
  versionIds: number[],
): Promise<Map<number, Artifact[]>> {
  const byVersion = new Map<number, Artifact[]>(versionIds.map((id) => [id, []]));
  if (versionIds.length === 0) return byVersion;
  const rows = await ctx.db
    .select()
    .from(artifacts)
    .where(inArray(artifacts.versionId, versionIds))
    .orderBy(asc(artifacts.id));
  for (const row of rows) byVersion.get(row.versionId)?.push(row);
  return byVersion;
}

/**
 * The columns of a version's file: the received file (where it is stored, its name, size, digests and
 * type) and what it was sent with (its signature; its platform and arch, read from the file's name by
 * the table `depot publish` uses when the request does not say them, `any` when the name does not
 * either).
 */
export function artifactValues(
  versionId: number,
  fields: typeof ArtifactUploadFields.static,
  file: UploadedFile,
) {
  const inferred = targetOf(file.fileName);
  return {
    versionId,
    platform: fields.platform ?? inferred.platform,
    platformInferred: fields.platform === undefined,
    arch: fields.arch ?? inferred.arch,
    archInferred: fields.arch === undefined,
    fileName: file.fileName,
    updatersOnly:
      fields.updaters_only === undefined ? forUpdatersOnly(file.fileName) : isSet(fields.updaters_only),
    fileSize: file.size,
    sha256: file.sha256,
    sha512: file.sha512,
    contentType: file.contentType,
    storageKey: file.key,
    signature: fields.signature ?? null,
  };
}

/** Every file an artifact keeps in the release store: its own, and its blockmap if it has one. */
export const storageKeysOf = (artifact: Pick<Artifact, "storageKey" | "blockmapStorageKey">): string[] =>
  artifact.blockmapStorageKey === null
    ? [artifact.storageKey]
    : [artifact.storageKey, artifact.blockmapStorageKey];
