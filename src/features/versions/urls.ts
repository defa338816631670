import type { Artifact, Version } from "../../db/schema/index.ts";

// A version's URLs, in a module of their own: the versions API shows them, and notifications, e-mails
// and webhooks sign them, without importing the versions service (which enqueues the notifications).

/** Where a version's file is served; notifications sign this URL. */
export const downloadUrl = (appUrl: string, version: Pick<Version, "productId" | "id">) =>
  `${appUrl}/api/products/${version.productId}/versions/${version.id}/download`;

/** Where one artifact's file is served (the same rules as the version's download). */
export const artifactDownloadUrl = (
  appUrl: string,
  productId: number,
  artifact: Pick<Artifact, "versionId" | "id">,
) => `${appUrl}/api/products/${productId}/versions/${artifact.versionId}/artifacts/${artifact.id}/download`;
