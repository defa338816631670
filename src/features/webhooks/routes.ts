import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { pathId } from "../../validation/ids.ts";
import { resendDelivery } from "./resend.ts";
import {
  CreateWebhookBody,
  ListQuery,
  NewWebhookJson,
  WebhookDeliveryJson,
  WebhookDeliveryPageJson,
  WebhookPageJson,
} from "./schemas.ts";
import {
  createWebhook,
  deleteWebhook,
  findOwnWebhook,
  listDeliveries,
  listWebhooks,
  MAX_WEBHOOKS_PER_USER,
  toDeliveryJson,
  toWebhookJson,
} from "./service.ts";

const tags = ["Webhooks"];

/** Signed event deliveries to the user's own endpoints: every user sees only their own. */
export const webhookRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/webhooks",
      async ({ body, actor, set }) => {
        const data = await createWebhook(ctx, actor.user.id, body);
        set.status = 201;
        return { data };
      },
      {
        auth: true,
        body: CreateWebhookBody,
        response: { 201: dataOf(NewWebhookJson), 401: MessageJson, 422: ValidationJson },
        detail: {
          summary: `Register an endpoint, at most ${MAX_WEBHOOKS_PER_USER} per user (its signing secret is shown once)`,
          tags,
        },
      },
    )
    .get(
      "/api/webhooks",
      async ({ query, actor, request }) => {
        const page = pageRequest(query);
        const rows = await listWebhooks(ctx, actor.user.id, page);
        return simplePage(rows.map(toWebhookJson), page, request);
      },
      {
        auth: true,
        query: ListQuery,
        response: { 200: WebhookPageJson, 401: MessageJson, 422: ValidationJson },
        detail: { summary: "Your endpoints, oldest first, 15 a page (without their secrets)", tags },
      },
    )
    .delete(
      "/api/webhooks/:id",
      async ({ params, actor, set }) => {
        await deleteWebhook(ctx, actor.user.id, pathId(params.id, "Webhook"));
        set.status = 204;
      },
      {
        auth: true,
        response: { 401: MessageJson, 404: MessageJson },
        detail: { summary: "Delete one of your endpoints and its deliveries", tags },
      },
    )
    .get(
      "/api/webhooks/:id/deliveries",
      async ({ params, query, actor, request }) => {
        // Someone else's endpoint is a 404 before the query is even looked at, as in Laravel.
        const webhook = await findOwnWebhook(ctx, actor.user.id, pathId(params.id, "Webhook"));
        const page = pageRequest(query);
        const rows = await listDeliveries(ctx, webhook.id, page);
        return simplePage(
          rows.map((row) => toDeliveryJson(ctx, webhook.userId, row)),
          page,
          request,
        );
      },
      {
        auth: true,
        query: ListQuery,
        response: { 200: WebhookDeliveryPageJson, 401: MessageJson, 404: MessageJson, 422: ValidationJson },
        detail: { summary: "An endpoint's deliveries, newest first, each with every attempt", tags },
      },
    )
    .post(
      "/api/webhooks/:id/deliveries/:delivery/resend",
      async ({ params, actor, set }) => {
        const row = await resendDelivery(ctx, actor.user.id, pathId(params.id, "Webhook"), params.delivery);
        set.status = 202;
        return { data: toDeliveryJson(ctx, actor.user.id, row) };
      },
      {
        auth: true,
        response: { 202: dataOf(WebhookDeliveryJson), 401: MessageJson, 404: MessageJson, 409: MessageJson },
        detail: {
          summary: "Send a delivery again: the same delivery (same webhook-id) is queued once more",
          description:
            "202 with the delivery, `pending` again; its next attempt is listed under it. A disabled endpoint: 409.",
          tags,
        },
      },
    );
