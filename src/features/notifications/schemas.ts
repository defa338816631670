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
  }),
  read_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  created_at: t.String({ format: "date-time" }),
});

export const NotificationPageJson = simplePageOf(NotificationJson);

export const NotificationQuery = t.Object({
  unread: t.Optional(t.String({ description: "1: only unread notifications" })),
  ...PageQuery,
});
