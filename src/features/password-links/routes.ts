import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { forms, input } from "../../http/forms.ts";
import { requestState } from "../../http/request-state.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { forgotPassword } from "./forgot.ts";
import {
  ForgotPasswordJson,
  PasswordLinkInfoJson,
  PasswordLinkJson,
  toForgotPasswordData,
  toLinkData,
  toLinkInfoData,
} from "./json.ts";
import { ForgotPasswordBody, PasswordLinkQuery } from "./schemas.ts";
import { issuePasswordLink, SetPasswordForm, setPasswordWithLink, userOfLink } from "./service.ts";

const LinkInfoData = dataOf(PasswordLinkInfoJson);

/** One-time links that let a person choose their dashboard password (docs/reference/http-api.md, Dashboard sign-in). */
export const passwordLinkRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api", tags: ["Dashboard"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .post(
      "/admin/users/:user/password-link",
      async ({ params, status }) => status(201, toLinkData(await issuePasswordLink(ctx, params.user))),
      {
        auth: "*",
        params: t.Object({ user: IdParam("User") }),
        ...answers(
          {
            summary: "A one-time set-password link for a user (72 h; e-mailed too when SMTP_URL is set)",
            tags: ["Admin"],
          },
          { 201: dataOf(PasswordLinkJson) },
          404,
        ),
      },
    )
    .get("/auth/password-link", async ({ query }) => toLinkInfoData(await userOfLink(ctx, query.token)), {
      query: PasswordLinkQuery,
      ...answers("Whom a set-password link is for (the page greets them)", { 200: LinkInfoData }, 422),
    })
    .post(
      "/auth/forgot-password",
      async ({ body, request }) =>
        toForgotPasswordData(await forgotPassword(ctx, body.email, requestState(request).ip)),
      {
        // Public like sign-in, and like it refused from other sites before its body is checked.
        transform: ({ request }) => refuseCrossSite(request, ctx.config.appUrl),
        body: ForgotPasswordBody,
        ...answers(
          "Forgot password: e-mail a set-password link to this address if it has an account (the answer never says)",
          { 200: dataOf(ForgotPasswordJson) },
          403,
          422,
          429,
        ),
      },
    )
    .post("/auth/set-password", ({ body }) => noContent(setPasswordWithLink(ctx, body)), {
      // Public like sign-in, and like it refused from other sites before its body is checked.
      transform: ({ request }) => refuseCrossSite(request, ctx.config.appUrl),
      ...input(SetPasswordForm),
      ...answers("Set a password with a one-time link; ends the user's sessions", {}, 403),
    });
