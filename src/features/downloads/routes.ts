import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../auth/guards.ts";
import { DownloadListJson } from "./schemas.ts";
import { listDownloads } from "./service.ts";

/** What the caller may download: the dashboard's Downloads page. */
export const downloadRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get("/api/downloads", async ({ actor }) => ({ data: await listDownloads(ctx, actor.user.id) }), {
      auth: true,
      response: { 200: DownloadListJson },
      detail: {
        summary: "The products you hold, each with its newest version and your benefits' newest versions",
        tags: ["Versions"],
      },
    });
