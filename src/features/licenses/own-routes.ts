import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { PageQuery, simplePage, simplePageOf } from "../../http/pagination.ts";
import { MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { listOwnLicenses } from "./own.ts";
import { OwnLicenseJson } from "./schemas.ts";

/** The signed-in user's own licenses (the dashboard's Licenses page); any credential of theirs. */
export const ownLicenseRoutes = (ctx: AppContext) =>
  new Elysia().use(bearerAuth(ctx)).get(
    "/api/licenses",
    async ({ query, actor, request }) => {
      const page = pageRequest(query);
      const rows = await listOwnLicenses(ctx, actor.user.id, page);
      return simplePage(rows, page, request);
    },
    {
      auth: true,
      query: t.Object({ ...PageQuery }),
      response: { 200: simplePageOf(OwnLicenseJson), 401: MessageJson, 422: ValidationJson },
      detail: {
        summary: "Your licenses, newest first: key, product, status, addresses and IP resets left today",
        tags: ["Licenses"],
      },
    },
  );
