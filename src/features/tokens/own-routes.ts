import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { CreateTokenBody, NewTokenJson, TokenListQuery, TokenPageJson } from "./schemas.ts";
import { createToken, deleteToken, listOwnTokens, toTokenJson } from "./service.ts";

const tags = ["Tokens"];

/**
 * Making and revoking one's own tokens needs the dashboard's session: a token, however narrow, could
 * otherwise mint a broader one (its abilities are narrowed only by the role).
 */
const DASHBOARD_ONLY = "Personal access tokens are managed in the dashboard.";

/** Every user's own personal access tokens (the dashboard's Tokens page). */
export const ownTokenRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/tokens",
      async ({ query, actor, request }) => {
        const page = pageRequest(query);
        return simplePage((await listOwnTokens(ctx, actor.user.id, page)).map(toTokenJson), page, request);
      },
      {
        auth: true,
        query: TokenListQuery,
        response: { 200: TokenPageJson, ...refusals(422) },
        detail: { summary: "Your personal access tokens, newest first, 15 a page (never the secret)", tags },
      },
    )
    .post(
      "/api/tokens",
      async ({ body, actor, status }) => status(201, { data: await createToken(ctx, actor.user.id, body) }),
      {
        sessionOnly: DASHBOARD_ONLY,
        body: CreateTokenBody,
        response: { 201: dataOf(NewTokenJson), ...refusals(422) },
        detail: {
          summary: "Create a personal access token for yourself (dashboard session; shown once)",
          tags,
        },
      },
    )
    .delete(
      "/api/tokens/:id",
      async ({ params, actor, set }) => {
        await deleteToken(ctx, params.id, actor.user.id);
        set.status = 204;
      },
      {
        sessionOnly: DASHBOARD_ONLY,
        params: t.Object({ id: IdParam("Token") }),
        response: refusals(404),
        detail: { summary: "Revoke one of your personal access tokens (dashboard session)", tags },
      },
    );
