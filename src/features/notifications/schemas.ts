import { t } from "elysia";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";

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

export const NotificationPageJson = simplePageOf(NotificationJson);

export const MarkedJson = t.Object({ marked: Int({ description: "how many were unread" }) });

/** Laravel's boolean rule: 1 or true, 0 or false; empty (`?unread=`) reads as absent. */
const UnreadFlag = t
  .Transform(
    t.String({
      pattern: "^(|0|1|true|false)$",
      error: "The unread field must be true or false.",
      description: "1: only unread notifications",
    }),
  )
  .Decode((raw) => raw === "1" || raw === "true")
  .Encode((unreadOnly) => (unreadOnly ? "1" : "0"));

export const NotificationQuery = t.Object({ unread: t.Optional(UnreadFlag), ...PageQuery });
