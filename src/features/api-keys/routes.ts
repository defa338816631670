import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { ApiKeyPageJson, NewApiKeyJson, toApiKeyJson } from "./json.ts";
import { ApiKeyListQuery } from "./schemas.ts";
import { createApiKeyFromForm, deleteApiKey, listApiKeys, NewApiKeyForm } from "./service.ts";

/** The license API's keys, for the admins. */
export const apiKeyRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/admin/api-keys", tags: ["Admin"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get("", ({ query, request }) => pageOf(query, request, (page) => listApiKeys(ctx, page), toApiKeyJson), {
      auth: "*",
      query: ApiKeyListQuery,
      ...answers("List the license API keys, newest first (never the keys)", { 200: ApiKeyPageJson }, 422),
    })
    .post("", async ({ body, status }) => status(201, { data: await createApiKeyFromForm(ctx, body) }), {
      auth: "*",
      ...input(NewApiKeyForm),
      ...answers("Create a license API key (shown once)", { 201: dataOf(NewApiKeyJson) }),
    })
    .delete("/:key", ({ params }) => noContent(deleteApiKey(ctx, params.key)), {
      auth: "*",
      params: t.Object({ key: IdParam("API key") }),
      ...answers("Revoke a license API key", {}, 404),
    });
