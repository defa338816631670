import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { asSignedIn, SessionJson } from "../sessions/json.ts";
import { clientOf } from "../sessions/sign-in.ts";
import { SetupStateJson } from "./json.ts";
import { assertSetupOpen, createFirstAdmin, SetupForm, setupState } from "./service.ts";

/**
 * First run (README, Quick start): while no user exists, the dashboard asks for the setup code
 * `depot serve` printed and creates the first admin, signed in at once. Both routes answer 404 as
 * soon as any user exists.
 */
export const setupRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/setup", tags: ["Dashboard"] })
    .use(forms(ctx))
    .get("", () => setupState(ctx), {
      ...answers(
        "Whether the first admin is still to be created (404 once any user exists)",
        { 200: dataOf(SetupStateJson) },
        404,
      ),
    })
    .post(
      "",
      async ({ body, request, set, status }) =>
        status(201, asSignedIn(ctx, set.headers, await createFirstAdmin(ctx, body, clientOf(request)))),
      {
        // Public like sign-in, refused from other sites, and closed before its body is read once set up.
        transform: async ({ request }) => {
          refuseCrossSite(request, ctx.config.appUrl);
          await assertSetupOpen(ctx);
        },
        ...input(SetupForm),
        ...answers(
          "Create the first admin with the setup code and sign in (sets the depot_session cookie)",
          { 201: dataOf(SessionJson) },
          403,
          404,
        ),
      },
    );
