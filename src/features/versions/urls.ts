import type { Version } from "../../db/schema/index.ts";

/** Where a version's file is served; notifications sign this URL. */
export const downloadUrl = (appUrl: string, version: Pick<Version, "productId" | "id">) =>
  `${appUrl}/api/products/${version.productId}/versions/${version.id}/download`;
