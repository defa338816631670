import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { cookieIsSecure, signedOut } from "./cookie.ts";
import { warmDummyHash } from "./credentials.ts";
import { sessionAuth } from "./guard.ts";
import { asSignedIn, SessionJson, toSessionJson } from "./json.ts";
import { SignInBody } from "./schemas.ts";
import { endEverySession, endSession } from "./service.ts";
import { clientOf, signIn } from "./sign-in.ts";

/** Dashboard sign-in: a password for a server-side session in an HttpOnly cookie (docs/reference/http-api.md, Dashboard sign-in). */
export const sessionRoutes = (ctx: AppContext) => {
  const secure = cookieIsSecure(ctx.config.appUrl);
  // Hashed now, so the first sign-in for an unknown e-mail takes no longer than any other.
  void warmDummyHash();
  return new Elysia({ prefix: "/api/auth", tags: ["Dashboard"] })
    .use(sessionAuth(ctx))
    .post(
      "/sign-in",
      async ({ body, request, set }) =>
        asSignedIn(ctx, set.headers, await signIn(ctx, body, clientOf(request))),
      {
        // Anyone may sign in; what guards it is coming from our own site, checked before the body.
        transform: ({ request }) => refuseCrossSite(request, ctx.config.appUrl),
        body: SignInBody,
        ...answers(
          "Sign in to the dashboard (sets the depot_session cookie)",
          { 200: dataOf(SessionJson) },
          403,
          422,
          429,
        ),
      },
    )
    .get("/session", ({ signedIn }) => ({ data: toSessionJson(signedIn, signedIn.session) }), {
      session: true,
      ...answers("Who is signed in, and the CSRF token", { 200: dataOf(SessionJson) }),
    })
    .post("/sign-out", ({ signedIn, set }) => signedOut(set, secure, endSession(ctx, signedIn.session.id)), {
      session: true,
      ...answers("Sign out of this browser", {}),
    })
    .post(
      "/sign-out-everywhere",
      ({ signedIn, set }) => signedOut(set, secure, endEverySession(ctx, signedIn.user.id)),
      {
        session: true,
        ...answers("Sign out of every browser (bearer tokens stay valid)", {}),
      },
    );
};
