import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pathId } from "../../validation/ids.ts";
import { CreateUserBody, UserJson } from "./schemas.ts";
import { createUser, readUser, toUserJson } from "./service.ts";

export const userRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/users/:user",
      async ({ params, actor }) => ({
        data: toUserJson(await readUser(ctx, actor, pathId(params.user, "User"))),
      }),
      {
        auth: true,
        response: { 200: dataOf(UserJson), 401: MessageJson, 403: MessageJson, 404: MessageJson },
        detail: { summary: "Read a user with their role (self, or users.view)", tags: ["Users"] },
      },
    )
    .post(
      "/api/admin/users",
      async ({ body, set }) => {
        set.status = 201;
        return { data: toUserJson(await createUser(ctx, body)) };
      },
      {
        auth: "*",
        body: CreateUserBody,
        response: { 201: dataOf(UserJson), 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "Create a user", tags: ["Admin"] },
      },
    );
