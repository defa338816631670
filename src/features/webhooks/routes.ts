import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam, UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import {
  NewWebhookJson,
  toDeliveryJson,
  toDeliveryPageJson,
  toNewWebhookJson,
  toWebhookJson,
  WebhookDeliveryJson,
  WebhookDeliveryPageJson,
  WebhookPageJson,
} from "./json.ts";
import { resendDelivery } from "./resend.ts";
import { ListQuery } from "./schemas.ts";
import {
  createWebhook,
  deleteWebhook,
  listOwnDeliveries,
  listWebhooks,
  MAX_WEBHOOKS_PER_USER,
  NewWebhookForm,
} from "./service.ts";

const WebhookParams = t.Object({ id: IdParam("Webhook") });
const DeliveryParams = t.Object({ id: IdParam("Webhook"), delivery: UuidParam("Delivery") });

/** Signed event deliveries to the user's own endpoints: every user sees only their own. */
export const webhookRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/webhooks", tags: ["Webhooks"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .post(
      "",
      async ({ body, actor, status }) =>
        status(201, { data: toNewWebhookJson(await createWebhook(ctx, actor.user.id, body)) }),
      {
        auth: true,
        ...answers(
          `Register an endpoint, at most ${MAX_WEBHOOKS_PER_USER} per user (its signing secret is shown once)`,
          { 201: dataOf(NewWebhookJson) },
        ),
        ...input(NewWebhookForm),
      },
    )
    .get(
      "",
      ({ query, actor, request }) =>
        pageOf(query, request, (page) => listWebhooks(ctx, actor.user.id, page), toWebhookJson),
      {
        auth: true,
        query: ListQuery,
        ...answers(
          "Your endpoints, oldest first, 15 a page (without their secrets)",
          { 200: WebhookPageJson },
          422,
        ),
      },
    )
    .delete("/:id", ({ params, actor }) => noContent(deleteWebhook(ctx, actor.user.id, params.id)), {
      auth: true,
      params: WebhookParams,
      ...answers("Delete one of your endpoints and its deliveries", {}, 404),
    })
    .get(
      "/:id/deliveries",
      async ({ params, query, actor, request }) => {
        const deliveries = await listOwnDeliveries(ctx, actor.user.id, params.id, query);
        return toDeliveryPageJson(ctx, actor.user.id, deliveries, request);
      },
      {
        auth: true,
        params: WebhookParams,
        query: ListQuery,
        ...answers(
          "An endpoint's deliveries, newest first, each with every attempt",
          { 200: WebhookDeliveryPageJson },
          404,
          422,
        ),
      },
    )
    .post(
      "/:id/deliveries/:delivery/resend",
      async ({ params, actor, status }) => {
        const row = await resendDelivery(ctx, actor.user.id, params.id, params.delivery);
        return status(202, { data: toDeliveryJson(ctx, actor.user.id, row) });
      },
      {
        auth: true,
        params: DeliveryParams,
        ...answers(
          {
            summary: "Send a delivery again: the same delivery (same webhook-id) is queued once more",
            description:
              "202 with the delivery, `pending` again; its next attempt is listed under it. A disabled endpoint: 409.",
          },
          { 202: dataOf(WebhookDeliveryJson) },
          404,
          409,
        ),
      },
    );
