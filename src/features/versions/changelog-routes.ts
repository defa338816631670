import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { renderChangelog } from "./changelog.ts";
import { PublishFields } from "./schemas.ts";

const PreviewBody = t.Object(
  {
    changelog: t.String({ maxLength: PublishFields.properties.changelog.maxLength }),
    changelog_format: t.Optional(t.UnionEnum(["markdown", "html"])),
  },
  { additionalProperties: false },
);

/**
 * A changelog as depot shows it: the dashboard's publish preview and its release notes use this, so a
 * changelog renders the same way in the browser as in the notification e-mail, sanitised on the server.
 */
export const changelogRoutes = (ctx: AppContext) =>
  new Elysia().use(bearerAuth(ctx)).post(
    "/api/changelog/preview",
    ({ body }) => ({
      data: { html: renderChangelog(body.changelog, body.changelog_format ?? "markdown", ctx.config.appUrl) },
    }),
    {
      auth: true,
      body: PreviewBody,
      response: { 200: dataOf(t.Object({ html: t.String() })), ...refusals(422) },
      detail: {
        summary: "Render a changelog (Markdown or HTML) to sanitised HTML",
        tags: ["Versions"],
      },
    },
  );
