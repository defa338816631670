import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { PageQuery, simplePageOf } from "../../http/pagination.ts";
import { answers, noContent } from "../../http/schemas.ts";
import { UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { OwnLicenseJson, toOwnLicensePage } from "./json.ts";
import { ownLicensePage, resetOwnLicenseIps } from "./own.ts";

/** The signed-in user's own licenses at /api/licenses (the dashboard's Licenses page), by any credential. */
export const ownLicenseRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/licenses", tags: ["Licenses"] })
    .use(bearerAuth(ctx))
    .get(
      "",
      async ({ query, actor, request }) =>
        toOwnLicensePage(await ownLicensePage(ctx, actor.user.id, query), request),
      {
        auth: true,
        query: t.Object({ ...PageQuery }),
        ...answers(
          "Your licenses, newest first: key, product, status, addresses and IP resets left today",
          { 200: simplePageOf(OwnLicenseJson) },
          422,
        ),
      },
    )
    .delete("/:id/ips", ({ params, actor }) => noContent(resetOwnLicenseIps(ctx, actor, params.id)), {
      auth: true,
      params: t.Object({ id: UuidParam("License") }),
      ...answers("The license owner forgets its addresses (3 times a day)", {}, 404, 429),
    });
