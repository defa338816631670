import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { pathId } from "../../validation/ids.ts";
import { CreateUserBody, UpdateUserBody, UserJson, UserListQuery, UserPageJson } from "./schemas.ts";
import { createUser, listUsers, readUser, roleFilter, toUserJson, updateUser } from "./service.ts";

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
    )
    // users.view may read every account (GET /api/users/:user), so it may list them too; changing
    // them stays the admins'.
    .get(
      "/api/admin/users",
      async ({ query, request }) => {
        const [page, role] = await validateAll(
          () => pageRequest(query),
          () => roleFilter(ctx, query.role),
        );
        const rows = await listUsers(ctx, { search: query.search, role }, page);
        return simplePage(rows.map(toUserJson), page, request);
      },
      {
        auth: "users.view",
        query: UserListQuery,
        response: { 200: UserPageJson, 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: {
          summary: "List users by name, optionally by search (name or e-mail) and role (admins, users.view)",
          tags: ["Admin"],
        },
      },
    )
    .patch(
      "/api/admin/users/:user",
      async ({ params, body }) => ({
        data: toUserJson(await updateUser(ctx, pathId(params.user, "User"), body)),
      }),
      {
        auth: "*",
        body: UpdateUserBody,
        response: {
          200: dataOf(UserJson),
          401: MessageJson,
          403: MessageJson,
          404: MessageJson,
          422: ValidationJson,
        },
        detail: { summary: "Rename a user or change their role (never the last admin's)", tags: ["Admin"] },
      },
    );
