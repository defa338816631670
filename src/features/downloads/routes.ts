import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { DownloadListJson } from "./json.ts";
import { listDownloads } from "./list.ts";

/** What the caller may download: the dashboard's Downloads page. */
export const downloadRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Versions"] })
    .use(bearerAuth(ctx))
    .get("/api/downloads", async ({ actor }) => ({ data: await listDownloads(ctx, actor.user.id) }), {
      auth: true,
      ...answers("The products you hold, each with its newest version and your benefits' newest versions", {
        200: DownloadListJson,
      }),
    });
