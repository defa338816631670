import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { RoleJson, toRoleJson } from "../users/json.ts";
import { RoleWithCountJson, toRoleWithCountJson } from "./json.ts";
import { createRole, deleteRole, listRoles, NewRoleForm, RoleChangeForm, updateRole } from "./service.ts";

const RoleParams = t.Object({ role: IdParam("Role") });

/** The roles, for the admins. */
export const roleRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/admin/roles", tags: ["Admin"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get("", async () => ({ data: (await listRoles(ctx)).map(toRoleWithCountJson) }), {
      auth: "*",
      ...answers("List the roles by name, with how many users have each", {
        200: dataOf(t.Array(RoleWithCountJson)),
      }),
    })
    .post("", async ({ body, status }) => status(201, { data: toRoleJson(await createRole(ctx, body)) }), {
      auth: "*",
      ...input(NewRoleForm),
      ...answers("Create a role with some of the named permissions", { 201: dataOf(RoleJson) }),
    })
    .patch(
      "/:role",
      async ({ params, body }) => ({ data: toRoleJson(await updateRole(ctx, params.role, body)) }),
      {
        auth: "*",
        params: RoleParams,
        ...input(RoleChangeForm),
        ...answers(
          "Rename a role or change its permissions (not admin, vendor or customer)",
          { 200: dataOf(RoleJson) },
          404,
        ),
      },
    )
    .delete("/:role", ({ params }) => noContent(deleteRole(ctx, params.role)), {
      auth: "*",
      params: RoleParams,
      ...answers("Delete a role no user has (not admin, vendor or customer)", {}, 404, 409),
    });
