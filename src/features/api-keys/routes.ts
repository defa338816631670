import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { bodyId, IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { ApiKeyListQuery, ApiKeyPageJson, NewApiKeyJson } from "./schemas.ts";
import { createApiKey, deleteApiKey, listApiKeys, NewApiKeyForm } from "./service.ts";

export const apiKeyRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/api/admin/api-keys",
      async ({ query, request }) => {
        const page = pageRequest(query);
        return simplePage(await listApiKeys(ctx, page), page, request);
      },
      {
        auth: "*",
        query: ApiKeyListQuery,
        response: { 200: ApiKeyPageJson, ...refusals(422) },
        detail: { summary: "List the license API keys, newest first (never the keys)", tags: ["Admin"] },
      },
    )
    .post(
      "/api/admin/api-keys",
      async ({ body, status }) => {
        const creatorId = bodyId(body.creator_id, "creator_id");
        return status(201, { data: await createApiKey(ctx, { name: body.name, creatorId }) });
      },
      {
        auth: "*",
        ...input(NewApiKeyForm),
        response: { 201: dataOf(NewApiKeyJson) },
        detail: { summary: "Create a license API key (shown once)", tags: ["Admin"] },
      },
    )
    .delete(
      "/api/admin/api-keys/:key",
      async ({ params, set }) => {
        await deleteApiKey(ctx, params.key);
        set.status = 204;
      },
      {
        auth: "*",
        params: t.Object({ key: IdParam("API key") }),
        response: refusals(404),
        detail: { summary: "Revoke a license API key", tags: ["Admin"] },
      },
    );
