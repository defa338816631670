import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { clearedSessionCookie, cookieIsSecure, readSessionCookie, sessionCookie } from "./cookie.ts";
import { warmDummyHash } from "./credentials.ts";
import { sessionAuth } from "./guard.ts";
import { toSessionJson } from "./json.ts";
import { SessionJson, SignInBody } from "./schemas.ts";
import { endEverySession, endSession, lifetimeSeconds } from "./service.ts";
import { signIn } from "./sign-in.ts";

const tags = ["Dashboard"];

/** Dashboard sign-in: a password for a server-side session in an HttpOnly cookie (docs/reference/http-api.md, Dashboard sign-in). */
export const sessionRoutes = (ctx: AppContext) => {
  const secure = cookieIsSecure(ctx.config.appUrl);
  // Hashed now, so the first sign-in for an unknown e-mail takes no longer than any other.
  void warmDummyHash();
  return new Elysia()
    .use(sessionAuth(ctx))
    .post(
      "/api/auth/sign-in",
      async ({ body, request, set }) => {
        const { signedIn, token, session } = await signIn(ctx, body, {
          ip: requestState(request).ip,
          userAgent: request.headers.get("user-agent"),
          previousToken: readSessionCookie(request),
        });
        set.headers["set-cookie"] = sessionCookie(token, lifetimeSeconds(ctx), secure);
        return { data: toSessionJson(signedIn, session) };
      },
      {
        // Anyone may sign in; what guards it is coming from our own site, checked before the body.
        transform: ({ request }) => refuseCrossSite(request, ctx.config.appUrl),
        body: SignInBody,
        response: { 200: dataOf(SessionJson), ...refusals(403, 422, 429) },
        detail: { summary: "Sign in to the dashboard (sets the depot_session cookie)", tags },
      },
    )
    .get("/api/auth/session", ({ signedIn }) => ({ data: toSessionJson(signedIn, signedIn.session) }), {
      session: true,
      response: { 200: dataOf(SessionJson) },
      detail: { summary: "Who is signed in, and the CSRF token", tags },
    })
    .post(
      "/api/auth/sign-out",
      async ({ signedIn, set }) => {
        await endSession(ctx, signedIn.session.id);
        set.headers["set-cookie"] = clearedSessionCookie(secure);
        set.status = 204;
      },
      {
        session: true,
        detail: { summary: "Sign out of this browser", tags },
      },
    )
    .post(
      "/api/auth/sign-out-everywhere",
      async ({ signedIn, set }) => {
        await endEverySession(ctx, signedIn.user.id);
        set.headers["set-cookie"] = clearedSessionCookie(secure);
        set.status = 204;
      },
      {
        session: true,
        detail: { summary: "Sign out of every browser (bearer tokens stay valid)", tags },
      },
    );
};
