import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Notification } from "../../db/schema/index.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { MarkedJson, NotificationJson, NotificationPageJson, toNotificationJson } from "./json.ts";
import { NotificationQuery } from "./schemas.ts";
import { listNotifications, markAllRead, markRead } from "./service.ts";

const NotificationParams = t.Object({ id: UuidParam("Notification") });

/** In-app notifications: every user sees and marks only their own. */
export const notificationRoutes = (ctx: AppContext) => {
  // One notification's answer, `{ data }`, once the service has changed it.
  const data = async (changed: Promise<Notification>) => ({ data: toNotificationJson(ctx, await changed) });
  return new Elysia({ prefix: "/api/notifications", tags: ["Notifications"] })
    .use(bearerAuth(ctx))
    .get(
      "",
      ({ query, actor, request }) =>
        pageOf(
          query,
          request,
          (page) => listNotifications(ctx, actor.user.id, query.unread ?? false, page),
          (row) => toNotificationJson(ctx, row),
        ),
      {
        auth: true,
        query: NotificationQuery,
        ...answers(
          "Your notifications, newest first (?unread=1: unread only)",
          { 200: NotificationPageJson },
          422,
        ),
      },
    )
    .post("/read-all", async ({ actor }) => ({ data: { marked: await markAllRead(ctx, actor.user.id) } }), {
      auth: true,
      ...answers("Mark all your notifications read", { 200: dataOf(MarkedJson) }),
    })
    .post("/:id/read", ({ params, actor }) => data(markRead(ctx, actor.user.id, params.id)), {
      auth: true,
      params: NotificationParams,
      ...answers("Mark one of your notifications read", { 200: dataOf(NotificationJson) }, 404),
    });
};
