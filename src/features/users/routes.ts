import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { answers } from "../../http/schemas.ts";
import { pageRequest } from "../../page-request.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { toUserData, toUserJson, UserData, UserPageJson } from "./json.ts";
import { UserListQuery } from "./schemas.ts";
import {
  createUser,
  listUsers,
  NewUserForm,
  readUser,
  roleFilter,
  UserChangeForm,
  updateUser,
} from "./service.ts";

const UserParams = t.Object({ user: IdParam("User") });

/** Users: anyone reads themselves (users.view anyone) at /api/users; the admins manage them at /api/admin/users. */
export const userRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api", tags: ["Admin"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get("/users/:user", async ({ params, actor }) => toUserData(await readUser(ctx, actor, params.user)), {
      auth: true,
      params: UserParams,
      ...answers(
        { summary: "Read a user with their role (self, or users.view)", tags: ["Users"] },
        { 200: UserData },
        404,
      ),
    })
    .post("/admin/users", async ({ body, status }) => status(201, toUserData(await createUser(ctx, body))), {
      auth: "*",
      ...input(NewUserForm),
      ...answers("Create a user", { 201: UserData }),
    })
    // users.view may read every account (GET /api/users/:user), so it may list them too; changing
    // them stays the admins'.
    .get(
      "/admin/users",
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
        ...answers(
          "List users by name, optionally by search (name or e-mail) and role (admins, users.view)",
          { 200: UserPageJson },
          422,
        ),
      },
    )
    .patch(
      "/admin/users/:user",
      async ({ params, body }) => toUserData(await updateUser(ctx, params.user, body)),
      {
        auth: "*",
        params: UserParams,
        ...input(UserChangeForm),
        ...answers("Rename a user or change their role (never the last admin's)", { 200: UserData }, 404),
      },
    );
