import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { forms, input } from "../../http/forms.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { cookieIsSecure, sessionCookie } from "../sessions/cookie.ts";
import { toSessionJson } from "../sessions/json.ts";
import { SessionJson } from "../sessions/schemas.ts";
import { lifetimeSeconds } from "../sessions/service.ts";
import { SetupStateJson } from "./schemas.ts";
import { assertSetupOpen, createFirstAdmin, SetupForm } from "./service.ts";

const tags = ["Dashboard"];

/**
 * First run (README, Quick start): while no user exists, the dashboard asks for the setup code
 * `depot serve` printed and creates the first admin, signed in at once. Both routes answer 404 as
 * soon as any user exists.
 */
export const setupRoutes = (ctx: AppContext) => {
  const secure = cookieIsSecure(ctx.config.appUrl);
  return new Elysia()
    .use(forms(ctx))
    .get(
      "/api/setup",
      async () => {
        await assertSetupOpen(ctx);
        return { data: { setup_required: true as const } };
      },
      {
        response: { 200: dataOf(SetupStateJson), ...refusals(404) },
        detail: {
          summary: "Whether the first admin is still to be created (404 once any user exists)",
          tags,
        },
      },
    )
    .post(
      "/api/setup",
      async ({ body, request, set, status }) => {
        const { signedIn, token, session } = await createFirstAdmin(ctx, body, {
          ip: requestState(request).ip,
          userAgent: request.headers.get("user-agent"),
        });
        set.headers["set-cookie"] = sessionCookie(token, lifetimeSeconds(ctx), secure);
        return status(201, { data: toSessionJson(signedIn, session) });
      },
      {
        // Public like sign-in, refused from other sites, and closed before its body is read once set up.
        transform: async ({ request }) => {
          refuseCrossSite(request, ctx.config.appUrl);
          await assertSetupOpen(ctx);
        },
        ...input(SetupForm),
        response: { 201: dataOf(SessionJson), ...refusals(403, 404) },
        detail: {
          summary: "Create the first admin with the setup code and sign in (sets the depot_session cookie)",
          tags,
        },
      },
    );
};
