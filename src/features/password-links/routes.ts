import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pathId } from "../../validation/ids.ts";
import { PasswordLinkInfoJson, PasswordLinkJson, PasswordLinkQuery, SetPasswordBody } from "./schemas.ts";
import { issuePasswordLink, setPasswordWithLink, userOfLink } from "./service.ts";

/** One-time links that let a person choose their dashboard password (README, Dashboard sign-in). */
export const passwordLinkRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .post(
      "/api/admin/users/:user/password-link",
      async ({ params, set }) => {
        const link = await issuePasswordLink(ctx, pathId(params.user, "User"));
        set.status = 201;
        return { data: { url: link.url, expires_at: link.expiresAt.toISOString(), emailed: link.emailed } };
      },
      {
        auth: "*",
        response: { 201: dataOf(PasswordLinkJson), 401: MessageJson, 403: MessageJson, 404: MessageJson },
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
        response: { 200: dataOf(PasswordLinkInfoJson), 422: ValidationJson },
        detail: { summary: "Whom a set-password link is for (the page greets them)", tags: ["Dashboard"] },
      },
    )
    .post(
      "/api/auth/set-password",
      async ({ body, request, set }) => {
        // Public like sign-in, and refused from other sites like sign-in.
        refuseCrossSite(request, ctx.config.appUrl);
        await setPasswordWithLink(ctx, body.token, body.password);
        set.status = 204;
      },
      {
        body: SetPasswordBody,
        response: { 403: MessageJson, 422: ValidationJson },
        detail: {
          summary: "Set a password with a one-time link; ends the user's sessions",
          tags: ["Dashboard"],
        },
      },
    );
