import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Notification } from "../../db/schema/index.ts";
import { simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";
import { withDownloadLink } from "./links.ts";

export const NotificationJson = t.Object({
  id: t.String({ format: "uuid" }),
  type: t.String(),
  data: t.Object({
    product_id: Int(),
    product_name: t.String(),
    version_id: Int(),
    version_number: t.String(),
    title: t.String(),
    benefit_name: t.Union([t.String(), t.Null()]),
    download_url: t.String({
      description: "signed for you, valid for 7 days from the notification; works while you may download",
    }),
    yank_reason: t.Optional(
      t.Union([t.String(), t.Null()], { description: "`version.yanked` only: why the vendor withdrew it" }),
    ),
  }),
  read_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  created_at: t.String({ format: "date-time" }),
});

/** A notification as its user reads it, with a download link signed for them. */
export const toNotificationJson = (ctx: Pick<AppContext, "appKey" | "config">, row: Notification) => ({
  id: row.id,
  type: row.type,
  data: withDownloadLink(ctx, row.data, row.userId, row.createdAt),
  read_at: row.readAt?.toISOString() ?? null,
  created_at: row.createdAt.toISOString(),
});

export const NotificationPageJson = simplePageOf(NotificationJson);

export const MarkedJson = t.Object({ marked: Int({ description: "how many were unread" }) });
