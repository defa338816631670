import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { NewTokenData } from "./json.ts";
import { CreateTokenBody } from "./schemas.ts";
import { createToken, deleteToken } from "./service.ts";

/** Any user's personal access tokens, for the admins. */
export const tokenRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/admin", tags: ["Admin"] })
    .use(bearerAuth(ctx))
    .post(
      "/users/:user/tokens",
      async ({ params, body, status }) => status(201, { data: await createToken(ctx, params.user, body) }),
      {
        auth: "*",
        params: t.Object({ user: IdParam("User") }),
        body: CreateTokenBody,
        ...answers("Create a personal access token (shown once)", { 201: NewTokenData }, 404, 422),
      },
    )
    .delete("/tokens/:token", ({ params }) => noContent(deleteToken(ctx, params.token)), {
      auth: "*",
      params: t.Object({ token: IdParam("Token") }),
      ...answers("Revoke a personal access token", {}, 404),
    });
