import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { Invalid } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { Int } from "../../validation/schemas.ts";
import { NotificationJson, NotificationPageJson, NotificationQuery } from "./schemas.ts";
import { listNotifications, markAllRead, markRead, toNotificationJson } from "./service.ts";

const tags = ["Notifications"];

/** In-app notifications: every user sees and marks only their own. */
export const notificationRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/notifications",
      async ({ query, actor, request }) => {
        if (query.unread !== undefined && !["", "0", "1", "true", "false"].includes(query.unread)) {
          throw new Invalid({ unread: ["The unread field must be true or false."] });
        }
        const page = pageRequest(query);
        const unreadOnly = query.unread === "1" || query.unread === "true";
        const rows = await listNotifications(ctx, actor.user.id, unreadOnly, page);
        return simplePage(
          rows.map((row) => toNotificationJson(ctx, row)),
          page,
          request,
        );
      },
      {
        auth: true,
        query: NotificationQuery,
        response: { 200: NotificationPageJson, 401: MessageJson, 422: ValidationJson },
        detail: { summary: "Your notifications, newest first (?unread=1: unread only)", tags },
      },
    )
    .post(
      "/api/notifications/read-all",
      async ({ actor }) => ({ data: { marked: await markAllRead(ctx, actor.user.id) } }),
      {
        auth: true,
        response: { 200: dataOf(t.Object({ marked: Int() })), 401: MessageJson },
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
        response: { 200: dataOf(NotificationJson), 401: MessageJson, 404: MessageJson },
        detail: { summary: "Mark one of your notifications read", tags },
      },
    );
