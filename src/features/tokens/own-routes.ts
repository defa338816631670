import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { pathId } from "../../validation/ids.ts";
import { CreateTokenBody, NewTokenJson, TokenListQuery, TokenPageJson } from "./schemas.ts";
import { createToken, deleteToken, listOwnTokens, toTokenJson } from "./service.ts";

const tags = ["Tokens"];

/**
 * Making and revoking one's own tokens needs the dashboard's session: a token, however narrow, could
 * otherwise mint a broader one (its abilities are narrowed only by the role).
 */
export const DASHBOARD_ONLY = "Personal access tokens are managed in the dashboard.";

/** Every user's own personal access tokens (the dashboard's Tokens page). */
export const ownTokenRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/tokens",
      async ({ query, actor, request }) => {
        const page = pageRequest(query);
        const rows = await listOwnTokens(ctx, actor.user.id, page);
        return simplePage(rows.map(toTokenJson), page, request);
      },
      {
        auth: true,
        query: TokenListQuery,
        response: { 200: TokenPageJson, 401: MessageJson, 422: ValidationJson },
        detail: { summary: "Your personal access tokens, newest first, 15 a page (never the secret)", tags },
      },
    )
    .post(
      "/api/tokens",
      async ({ body, actor, set }) => {
        const data = await createToken(ctx, actor.user.id, body);
        set.status = 201;
        return { data };
      },
      {
        sessionOnly: DASHBOARD_ONLY,
        body: CreateTokenBody,
        response: {
          201: dataOf(NewTokenJson),
          401: MessageJson,
          403: MessageJson,
          419: MessageJson,
          422: ValidationJson,
        },
        detail: {
          summary: "Create a personal access token for yourself (dashboard session; shown once)",
          tags,
        },
      },
    )
    .delete(
      "/api/tokens/:id",
      async ({ params, actor, set }) => {
        await deleteToken(ctx, pathId(params.id, "Token"), actor.user.id);
        set.status = 204;
      },
      {
        sessionOnly: DASHBOARD_ONLY,
        response: { 401: MessageJson, 403: MessageJson, 404: MessageJson, 419: MessageJson },
        detail: { summary: "Revoke one of your personal access tokens (dashboard session)", tags },
      },
    );
