import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { RoleJson } from "../users/schemas.ts";
import { toRoleJson } from "../users/service.ts";
import { CreateRoleBody, RoleWithCountJson } from "./schemas.ts";
import { createRole, listRoles } from "./service.ts";

export const roleRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/admin/roles",
      async () => ({
        data: (await listRoles(ctx)).map(({ role, users }) => ({ ...toRoleJson(role), users_count: users })),
      }),
      {
        auth: "*",
        response: { 200: dataOf(t.Array(RoleWithCountJson)), 401: MessageJson, 403: MessageJson },
        detail: { summary: "List the roles by name, with how many users have each", tags: ["Admin"] },
      },
    )
    .post(
      "/api/admin/roles",
      async ({ body, set }) => {
        set.status = 201;
        return { data: toRoleJson(await createRole(ctx, body)) };
      },
      {
        auth: "*",
        body: CreateRoleBody,
        response: { 201: dataOf(RoleJson), 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "Create a role with some of the named permissions", tags: ["Admin"] },
      },
    );
