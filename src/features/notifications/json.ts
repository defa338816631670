import type { AppContext } from "../../context.ts";
import type { Notification } from "../../db/schema/index.ts";
import { simplePage } from "../../http/pagination.ts";
import type { PageRequest } from "../../pagination.ts";
import { withDownloadLink } from "./links.ts";

/** A notification as its user reads it, with a download link signed for them. */
export const toNotificationJson = (ctx: Pick<AppContext, "appKey" | "config">, row: Notification) => ({
  id: row.id,
  type: row.type,
  data: withDownloadLink(ctx, row.data, row.userId, row.createdAt),
  read_at: row.readAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

/** A page of the user's notifications (`simplePage`), each as above. */
export const toNotificationPageJson = (
  ctx: Pick<AppContext, "appKey" | "config">,
  rows: Notification[],
  page: PageRequest,
  request: Request,
) =>
  simplePage(
    rows.map((row) => toNotificationJson(ctx, row)),
    page,
    request,
  );
