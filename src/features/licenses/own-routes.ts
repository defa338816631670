import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { PageQuery, simplePage, simplePageOf } from "../../http/pagination.ts";
import { refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { OwnLicenseJson, toOwnLicenseJson } from "./json.ts";
import { listOwnLicenses, resetOwnLicenseIps } from "./own.ts";

const tags = ["Licenses"];

/** The signed-in user's own licenses at /api/licenses (the dashboard's Licenses page), by any credential. */
export const ownLicenseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/licenses",
      async ({ query, actor, request }) => {
        const page = pageRequest(query);
        return simplePage(
          (await listOwnLicenses(ctx, actor.user.id, page)).map(toOwnLicenseJson),
          page,
          request,
        );
      },
      {
        auth: true,
        query: t.Object({ ...PageQuery }),
        response: { 200: simplePageOf(OwnLicenseJson), ...refusals(422) },
        detail: {
          summary: "Your licenses, newest first: key, product, status, addresses and IP resets left today",
          tags,
        },
      },
    )
    .delete(
      "/api/licenses/:id/ips",
      async ({ params, actor, set }) => {
        await resetOwnLicenseIps(ctx, actor, params.id);
        set.status = 204;
      },
      {
        auth: true,
        params: t.Object({ id: UuidParam("License") }),
        response: refusals(404, 429),
        detail: { summary: "The license owner forgets its addresses (3 times a day)", tags },
      },
    );
