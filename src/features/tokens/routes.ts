import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pathId } from "../../validation/ids.ts";
import { CreateTokenBody, NewTokenJson } from "./schemas.ts";
import { createToken, deleteToken } from "./service.ts";

export const tokenRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/admin/users/:user/tokens",
      async ({ params, body, set }) => {
        const data = await createToken(ctx, pathId(params.user, "User"), body);
        set.status = 201;
        return { data };
      },
      {
        auth: "*",
        body: CreateTokenBody,
        response: {
          201: dataOf(NewTokenJson),
          401: MessageJson,
          403: MessageJson,
          404: MessageJson,
          422: ValidationJson,
        },
        detail: { summary: "Create a personal access token (shown once)", tags: ["Admin"] },
      },
    )
    .delete(
      "/api/admin/tokens/:token",
      async ({ params, set }) => {
        await deleteToken(ctx, pathId(params.token, "Token"));
        set.status = 204;
      },
      {
        auth: "*",
        response: { 401: MessageJson, 403: MessageJson, 404: MessageJson },
        detail: { summary: "Revoke a personal access token", tags: ["Admin"] },
      },
    );
