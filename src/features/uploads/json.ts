import type { UploadRow } from "../../db/schema/index.ts";

/** An upload as its creation answers it; tus itself speaks in headers, this is for everyone else. */
export const toUploadJson = (row: UploadRow) => ({
  id: row.id,
  length: row.length,
  offset: row.received,
  expires_at: row.expiresAt.toISOString(),
});
