import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { UserJson, UserListQuery, UserPageJson } from "./schemas.ts";
import {
  createUser,
  listUsers,
  NewUserForm,
  readUser,
  roleFilter,
  toUserJson,
  UserChangeForm,
  updateUser,
} from "./service.ts";

const UserParams = t.Object({ user: IdParam("User") });

export const userRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/api/users/:user",
      async ({ params, actor }) => ({ data: toUserJson(await readUser(ctx, actor, params.user)) }),
      {
        auth: true,
        params: UserParams,
        response: { 200: dataOf(UserJson), ...refusals(404) },
        detail: { summary: "Read a user with their role (self, or users.view)", tags: ["Users"] },
      },
    )
    .post(
      "/api/admin/users",
      async ({ body, status }) => status(201, { data: toUserJson(await createUser(ctx, body)) }),
      {
        auth: "*",
        ...input(NewUserForm),
        response: { 201: dataOf(UserJson) },
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
        response: { 200: UserPageJson, ...refusals(422) },
        detail: {
          summary: "List users by name, optionally by search (name or e-mail) and role (admins, users.view)",
          tags: ["Admin"],
        },
      },
    )
    .patch(
      "/api/admin/users/:user",
      async ({ params, body }) => ({ data: toUserJson(await updateUser(ctx, params.user, body)) }),
      {
        auth: "*",
        params: UserParams,
        ...input(UserChangeForm),
        response: { 200: dataOf(UserJson), ...refusals(404) },
        detail: { summary: "Rename a user or change their role (never the last admin's)", tags: ["Admin"] },
      },
    );
