import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { toNotificationJson } from "./json.ts";
import { MarkedJson, NotificationJson, NotificationPageJson, NotificationQuery } from "./schemas.ts";
import { listNotifications, markAllRead, markRead } from "./service.ts";

const tags = ["Notifications"];
const NotificationParams = t.Object({ id: UuidParam("Notification") });

/** In-app notifications: every user sees and marks only their own. */
export const notificationRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/notifications",
      async ({ query, actor, request }) => {
        const page = pageRequest(query);
        const rows = await listNotifications(ctx, actor.user.id, query.unread ?? false, page);
        return simplePage(
          rows.map((row) => toNotificationJson(ctx, row)),
          page,
          request,
        );
      },
      {
        auth: true,
        query: NotificationQuery,
        response: { 200: NotificationPageJson, ...refusals(422) },
        detail: { summary: "Your notifications, newest first (?unread=1: unread only)", tags },
      },
    )
    .post(
      "/api/notifications/read-all",
      async ({ actor }) => ({ data: { marked: await markAllRead(ctx, actor.user.id) } }),
      {
        auth: true,
        response: { 200: dataOf(MarkedJson) },
        detail: { summary: "Mark all your notifications read", tags },
      },
    )
    .post(
      "/api/notifications/:id/read",
      async ({ params, actor }) => ({
        data: toNotificationJson(ctx, await markRead(ctx, actor.user.id, params.id)),
      }),
      {
        auth: true,
        params: NotificationParams,
        response: { 200: dataOf(NotificationJson), ...refusals(404) },
        detail: { summary: "Mark one of your notifications read", tags },
      },
    );
