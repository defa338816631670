import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { IdParam, UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { toDeliveryJson, toNewWebhookJson, toWebhookJson } from "./json.ts";
import { resendDelivery } from "./resend.ts";
import {
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
  NewWebhookForm,
} from "./service.ts";

const tags = ["Webhooks"];
const WebhookParams = t.Object({ id: IdParam("Webhook") });
const DeliveryParams = t.Object({ id: IdParam("Webhook"), delivery: UuidParam("Delivery") });

/** Signed event deliveries to the user's own endpoints: every user sees only their own. */
export const webhookRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .post(
      "/api/webhooks",
      async ({ body, actor, status }) =>
        status(201, { data: toNewWebhookJson(await createWebhook(ctx, actor.user.id, body)) }),
      {
        auth: true,
        ...input(NewWebhookForm),
        response: { 201: dataOf(NewWebhookJson) },
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
        return simplePage((await listWebhooks(ctx, actor.user.id, page)).map(toWebhookJson), page, request);
      },
      {
        auth: true,
        query: ListQuery,
        response: { 200: WebhookPageJson, ...refusals(422) },
        detail: { summary: "Your endpoints, oldest first, 15 a page (without their secrets)", tags },
      },
    )
    .delete(
      "/api/webhooks/:id",
      async ({ params, actor, set }) => {
        await deleteWebhook(ctx, actor.user.id, params.id);
        set.status = 204;
      },
      {
        auth: true,
        params: WebhookParams,
        response: refusals(404),
        detail: { summary: "Delete one of your endpoints and its deliveries", tags },
      },
    )
    .get(
      "/api/webhooks/:id/deliveries",
      async ({ params, query, actor, request }) => {
        // Someone else's endpoint is a 404 before the page is even read, as in Laravel; so the query's
        // schema takes any string and pageRequest checks it here, after the ownership.
        const webhook = await findOwnWebhook(ctx, actor.user.id, params.id);
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
        params: WebhookParams,
        query: ListQuery,
        response: { 200: WebhookDeliveryPageJson, ...refusals(404, 422) },
        detail: { summary: "An endpoint's deliveries, newest first, each with every attempt", tags },
      },
    )
    .post(
      "/api/webhooks/:id/deliveries/:delivery/resend",
      async ({ params, actor, set }) => {
        const row = await resendDelivery(ctx, actor.user.id, params.id, params.delivery);
        set.status = 202;
        return { data: toDeliveryJson(ctx, actor.user.id, row) };
      },
      {
        auth: true,
        params: DeliveryParams,
        response: { 202: dataOf(WebhookDeliveryJson), ...refusals(404, 409) },
        detail: {
          summary: "Send a delivery again: the same delivery (same webhook-id) is queued once more",
          description:
            "202 with the delivery, `pending` again; its next attempt is listed under it. A disabled endpoint: 409.",
          tags,
        },
      },
    );
