import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { Forbidden } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pathId } from "../../validation/ids.ts";
import { allows } from "../auth/permissions.ts";
import { CreateUserBody, UserJson } from "./schemas.ts";
import { createUser, findUserWithRole, toUserJson } from "./service.ts";

export const userRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/users/:user",
      async ({ params, actor }) => {
        const id = pathId(params.user, "User");
        // Laravel answers 403 before looking the user up, so existence is not revealed to outsiders.
        if (actor.user.id !== id && !allows(actor.permissions, "users.view")) throw new Forbidden();
        return { data: toUserJson(await findUserWithRole(ctx, id)) };
      },
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
