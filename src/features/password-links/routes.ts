import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { forms, input } from "../../http/forms.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { PasswordLinkInfoJson, PasswordLinkJson, PasswordLinkQuery } from "./schemas.ts";
import { issuePasswordLink, SetPasswordForm, setPasswordWithLink, userOfLink } from "./service.ts";

/** One-time links that let a person choose their dashboard password (docs/reference/http-api.md, Dashboard sign-in). */
export const passwordLinkRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .post(
      "/api/admin/users/:user/password-link",
      async ({ params, status }) => {
        const { url, expiresAt, emailed } = await issuePasswordLink(ctx, params.user);
        return status(201, { data: { url, expires_at: expiresAt.toISOString(), emailed } });
      },
      {
        auth: "*",
        params: t.Object({ user: IdParam("User") }),
        response: { 201: dataOf(PasswordLinkJson), ...refusals(404) },
        detail: {
          summary: "A one-time set-password link for a user (72 h; e-mailed too when SMTP_URL is set)",
          tags: ["Admin"],
        },
      },
    )
    .get(
      "/api/auth/password-link",
      async ({ query }) => {
        const { user, expiresAt } = await userOfLink(ctx, query.token);
        return { data: { email: user.email, expires_at: expiresAt.toISOString() } };
      },
      {
        query: PasswordLinkQuery,
        response: { 200: dataOf(PasswordLinkInfoJson), ...refusals(422) },
        detail: { summary: "Whom a set-password link is for (the page greets them)", tags: ["Dashboard"] },
      },
    )
    .post(
      "/api/auth/set-password",
      async ({ body, set }) => {
        await setPasswordWithLink(ctx, body.token, body.password);
        set.status = 204;
      },
      {
        // Public like sign-in, and like it refused from other sites before its body is checked.
        transform: ({ request }) => refuseCrossSite(request, ctx.config.appUrl),
        ...input(SetPasswordForm),
        response: refusals(403),
        detail: {
          summary: "Set a password with a one-time link; ends the user's sessions",
          tags: ["Dashboard"],
        },
      },
    );
