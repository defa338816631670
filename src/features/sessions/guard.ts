import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { Unauthenticated } from "../../errors.ts";
import { changesState, refuseCrossSite, requireCsrfToken } from "../../http/csrf.ts";
import { requestState } from "../../http/request-state.ts";
import { guardRefusals } from "../../http/schemas.ts";
import { cookieIsSecure, readSessionCookie, sessionCookie } from "./cookie.ts";
import { findSession, lifetimeSeconds, type SignedIn } from "./service.ts";

type Headers = Record<string, string | number>;

/**
 * The dashboard's session behind the request's `depot_session` cookie, or null. A state-changing
 * request must also come from our own site (403) and carry the session's CSRF token (419). When the
 * sliding expiry moved on, the cookie is sent again so the browser keeps it as long as we do.
 */
export async function authenticateSession(
  ctx: Pick<AppContext, "db" | "config">,
  request: Request,
  set: { headers: Headers },
): Promise<SignedIn | null> {
  const signedIn = await findSession(ctx, readSessionCookie(request));
  if (!signedIn) return null;
  const state = requestState(request);
  state.session = signedIn;
  state.who.user_id = signedIn.user.id;
  state.who.via = "session";
  if (changesState(request)) {
    refuseCrossSite(request, ctx.config.appUrl);
    requireCsrfToken(request, signedIn.session.csrfToken);
  }
  if (signedIn.renewed) {
    const cookie = readSessionCookie(request) ?? "";
    set.headers["set-cookie"] = sessionCookie(
      cookie,
      lifetimeSeconds(ctx),
      cookieIsSecure(ctx.config.appUrl),
    );
  }
  return signedIn;
}

/** Routes about the session itself (`{ session: true }`): only the cookie counts, never a bearer token. */
export const sessionAuth = (ctx: AppContext) =>
  new Elysia().macro({
    session: (_: true) => ({
      detail: { security: [{ sessionCookie: [] }] },
      response: guardRefusals,
      async transform({ request, set }) {
        const signedIn = await authenticateSession(ctx, request, set as { headers: Headers });
        if (!signedIn) throw new Unauthenticated();
      },
      resolve: ({ request }) => {
        const signedIn = requestState(request).session;
        if (!signedIn) throw new Unauthenticated();
        return { signedIn };
      },
    }),
  });
