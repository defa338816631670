import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { CreateTokenBody, NewTokenJson } from "./schemas.ts";
import { createToken, deleteToken } from "./service.ts";

export const tokenRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/admin/users/:user/tokens",
      async ({ params, body, status }) => status(201, { data: await createToken(ctx, params.user, body) }),
      {
        auth: "*",
        params: t.Object({ user: IdParam("User") }),
        body: CreateTokenBody,
        response: { 201: dataOf(NewTokenJson), ...refusals(404, 422) },
        detail: { summary: "Create a personal access token (shown once)", tags: ["Admin"] },
      },
    )
    .delete(
      "/api/admin/tokens/:token",
      async ({ params, set }) => {
        await deleteToken(ctx, params.token);
        set.status = 204;
      },
      {
        auth: "*",
        params: t.Object({ token: IdParam("Token") }),
        response: refusals(404),
        detail: { summary: "Revoke a personal access token", tags: ["Admin"] },
      },
    );
