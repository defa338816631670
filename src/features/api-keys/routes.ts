import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { bodyId, pathId } from "../../validation/ids.ts";
import { CreateApiKeyBody, NewApiKeyJson } from "./schemas.ts";
import { createApiKey, deleteApiKey } from "./service.ts";

export const apiKeyRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/admin/api-keys",
      async ({ body, set }) => {
        const data = await createApiKey(ctx, {
          name: body.name,
          creatorId: bodyId(body.creator_id, "creator_id"),
        });
        set.status = 201;
        return { data };
      },
      {
        auth: "*",
        body: CreateApiKeyBody,
        response: { 201: dataOf(NewApiKeyJson), 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "Create a license API key (shown once)", tags: ["Admin"] },
      },
    )
    .delete(
      "/api/admin/api-keys/:key",
      async ({ params, set }) => {
        await deleteApiKey(ctx, pathId(params.key, "API key"));
        set.status = 204;
      },
      {
        auth: "*",
        response: { 401: MessageJson, 403: MessageJson, 404: MessageJson },
        detail: { summary: "Revoke a license API key", tags: ["Admin"] },
      },
    );
