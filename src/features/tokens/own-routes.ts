import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { pageOf } from "../../http/pagination.ts";
import { answers, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { NewTokenData, TokenPageJson, toTokenJson } from "./json.ts";
import { CreateTokenBody, TokenListQuery } from "./schemas.ts";
import { createToken, deleteToken, listOwnTokens } from "./service.ts";

/**
 * Making and revoking one's own tokens needs the dashboard's session: a token, however narrow, could
 * otherwise mint a broader one (its abilities are narrowed only by the role).
 */
const DASHBOARD_ONLY = "Personal access tokens are managed in the dashboard.";

/** Every user's own personal access tokens (the dashboard's Tokens page). */
export const ownTokenRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/tokens", tags: ["Tokens"] })
    .use(bearerAuth(ctx))
    .get(
      "",
      async ({ query, actor, request }) =>
        pageOf(query, request, (page) => listOwnTokens(ctx, actor.user.id, page), toTokenJson),
      {
        auth: true,
        query: TokenListQuery,
        ...answers(
          "Your personal access tokens, newest first, 15 a page (never the secret)",
          { 200: TokenPageJson },
          422,
        ),
      },
    )
    .post(
      "",
      async ({ body, actor, status }) => status(201, { data: await createToken(ctx, actor.user.id, body) }),
      {
        sessionOnly: DASHBOARD_ONLY,
        body: CreateTokenBody,
        ...answers(
          "Create a personal access token for yourself (dashboard session; shown once)",
          { 201: NewTokenData },
          422,
        ),
      },
    )
    .delete("/:id", ({ params, actor }) => noContent(deleteToken(ctx, params.id, actor.user.id)), {
      sessionOnly: DASHBOARD_ONLY,
      params: t.Object({ id: IdParam("Token") }),
      ...answers("Revoke one of your personal access tokens (dashboard session)", {}, 404),
    });
