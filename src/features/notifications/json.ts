import type { AppContext } from "../../context.ts";
import type { Notification } from "../../db/schema/index.ts";
import { withDownloadLink } from "./links.ts";

/** A notification as its user reads it, with a download link signed for them. */
export const toNotificationJson = (ctx: Pick<AppContext, "appKey" | "config">, row: Notification) => ({
  id: row.id,
  type: row.type,
  data: withDownloadLink(ctx, row.data, row.userId, row.createdAt),
  read_at: row.readAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});
