import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Session } from "../../db/schema/index.ts";
import { refuseCrossSite } from "../../http/csrf.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { sessionAuth } from "../../http/session-auth.ts";
import { sha256Hex } from "../auth/secrets.ts";
import type { UserWithRole } from "../users/service.ts";
import { clearedSessionCookie, cookieIsSecure, readSessionCookie, sessionCookie } from "./cookie.ts";
import { checkPassword, findUserByEmail, warmDummyHash } from "./credentials.ts";
import { SessionJson, SignInBody } from "./schemas.ts";
import { endEverySession, endSession, lifetimeSeconds, startSession } from "./service.ts";
import { attemptSubject, SignInThrottle } from "./sign-in-throttle.ts";

const toSessionJson = ({ user, role }: UserWithRole, session: Session) => ({
  user: {
    id: user.id,
    name: user.name,
    email: user.email,
    role: { id: role.id, name: role.name, permissions: role.permissions },
  },
  csrf_token: session.csrfToken,
});

/** Dashboard sign-in: a password for a server-side session in an HttpOnly cookie (README, Dashboard sign-in). */
export const sessionRoutes = (ctx: AppContext) => {
  const throttle = new SignInThrottle(ctx.db, "sign-in");
  const secure = cookieIsSecure(ctx.config.appUrl);
  // Hashed now, so the first sign-in for an unknown e-mail takes no longer than any other.
  void warmDummyHash();
  return new Elysia()
    .use(sessionAuth(ctx))
    .post(
      "/api/auth/sign-in",
      async ({ body, request, set }) => {
        refuseCrossSite(request, ctx.config.appUrl);
        const ip = requestState(request).ip;
        const user = await findUserByEmail(ctx, body.email);
        const subject = attemptSubject(user?.user ?? null, body.email);
        await throttle.begin(subject, ip);
        const found = await checkPassword(user, body.password);
        await throttle.succeeded(subject, ip);
        // Signing in again replaces the browser's previous session rather than leaving it behind.
        const previous = readSessionCookie(request);
        if (previous) await endSession(ctx, sha256Hex(previous));
        const { token, session } = await startSession(ctx, found.user.id, {
          ip,
          userAgent: request.headers.get("user-agent"),
        });
        set.headers["set-cookie"] = sessionCookie(token, lifetimeSeconds(ctx), secure);
        return { data: toSessionJson(found, session) };
      },
      {
        body: SignInBody,
        response: { 200: dataOf(SessionJson), 403: MessageJson, 422: ValidationJson, 429: MessageJson },
        detail: { summary: "Sign in to the dashboard (sets the depot_session cookie)", tags: ["Dashboard"] },
      },
    )
    .get("/api/auth/session", ({ signedIn }) => ({ data: toSessionJson(signedIn, signedIn.session) }), {
      session: true,
      response: { 200: dataOf(SessionJson), 401: MessageJson },
      detail: { summary: "Who is signed in, and the CSRF token", tags: ["Dashboard"] },
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
        response: { 401: MessageJson, 403: MessageJson, 419: MessageJson },
        detail: { summary: "Sign out of this browser", tags: ["Dashboard"] },
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
        response: { 401: MessageJson, 403: MessageJson, 419: MessageJson },
        detail: { summary: "Sign out of every browser (bearer tokens stay valid)", tags: ["Dashboard"] },
      },
    );
};
