import type { Artifact, PurchaseBenefit, Version } from "../../db/schema/index.ts";

/** A version with what the API shows of its benefit, and its files (the first one first). */
export interface VersionRow {
  version: Version;
  benefit: Pick<PurchaseBenefit, "id" | "optionId" | "name"> | null;
  artifacts: Artifact[];
}

/** The file SPEC's Version describes (`file_name`, `download_url`): the version's first artifact. */
export function firstArtifact(row: Pick<VersionRow, "artifacts">): Artifact {
  const [first] = row.artifacts;
  // A version is inserted with its first artifact, and its last one cannot be deleted (artifacts/service.ts).
  if (!first) throw new Error("a version without files");
  return first;
}

/**
 * The file people download: the version's first artifact that is not for updaters only (a `.dmg`
 * rather than the `-mac.zip` published before it), else its first. The version's `download_url`,
 * `file_name`, `file_size` and `sha256` describe it, and the version's download serves it, so the
 * e-mails' and notifications' links (the version's download) never hand a person an updater's file.
 */
export function peopleFile(row: Pick<VersionRow, "artifacts">): Artifact {
  return row.artifacts.find((artifact) => !artifact.updatersOnly) ?? firstArtifact(row);
}
