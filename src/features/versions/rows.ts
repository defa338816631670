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
