import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { dataOf } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { RoleJson } from "../users/schemas.ts";
import { toRoleJson } from "../users/service.ts";
import { RoleWithCountJson } from "./schemas.ts";
import { createRole, listRoles, NewRoleForm } from "./service.ts";

export const roleRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/api/admin/roles",
      async () => ({
        data: (await listRoles(ctx)).map(({ role, users }) => ({ ...toRoleJson(role), users_count: users })),
      }),
      {
        auth: "*",
        response: { 200: dataOf(t.Array(RoleWithCountJson)) },
        detail: { summary: "List the roles by name, with how many users have each", tags: ["Admin"] },
      },
    )
    .post(
      "/api/admin/roles",
      async ({ body, status }) => status(201, { data: toRoleJson(await createRole(ctx, body)) }),
      {
        auth: "*",
        ...input(NewRoleForm),
        response: { 201: dataOf(RoleJson) },
        detail: { summary: "Create a role with some of the named permissions", tags: ["Admin"] },
      },
    );
