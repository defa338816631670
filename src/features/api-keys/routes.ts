import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { bodyId, pathId } from "../../validation/ids.ts";
import { ApiKeyListQuery, ApiKeyPageJson, CreateApiKeyBody, NewApiKeyJson } from "./schemas.ts";
import { createApiKey, deleteApiKey, listApiKeys } from "./service.ts";

export const apiKeyRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/admin/api-keys",
      async ({ query, request }) => {
        const page = pageRequest(query);
        return simplePage(await listApiKeys(ctx, page), page, request);
      },
      {
        auth: "*",
        query: ApiKeyListQuery,
        response: { 200: ApiKeyPageJson, 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "List the license API keys, newest first (never the keys)", tags: ["Admin"] },
      },
    )
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
