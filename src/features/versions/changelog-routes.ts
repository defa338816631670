import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { ChangelogHtmlJson, toChangelogHtmlJson } from "./json.ts";
import { ChangelogPreview } from "./schemas.ts";

/**
 * A changelog as depot shows it: the dashboard's publish preview and its release notes use this, so a
 * changelog renders the same way in the browser as in the notification e-mail, sanitised on the server.
 */
export const changelogRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Versions"] })
    .use(bearerAuth(ctx))
    .post("/api/changelog/preview", ({ body }) => toChangelogHtmlJson(body, ctx.config.appUrl), {
      auth: true,
      body: ChangelogPreview,
      ...answers("Render a changelog (Markdown or HTML) to sanitised HTML", { 200: ChangelogHtmlJson }, 422),
    });
