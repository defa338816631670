import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import type { Session } from "../../db/schema/index.ts";
import { Int } from "../../validation/schemas.ts";
import type { UserWithRole } from "../users/service.ts";
import { cookieIsSecure, sessionCookie } from "./cookie.ts";
import { lifetimeSeconds } from "./service.ts";

/** Who is signed in and the token the dashboard sends back in `X-CSRF-Token`. */
export const SessionJson = t.Object({
  user: t.Object({
    id: Int(),
    name: t.String(),
    email: t.String(),
    role: t.Object({ id: Int(), name: t.String(), permissions: t.Array(t.String()) }),
  }),
  csrf_token: t.String(),
});

/** A session as sign-in, the session check and first-run setup answer it (SessionJson). */
export const toSessionJson = ({ user, role }: UserWithRole, session: Session) => ({
  user: {
    id: user.id,
    name: user.name,
    email: user.email,
    role: { id: role.id, name: role.name, permissions: role.permissions },
  },
  csrf_token: session.csrfToken,
});

/** A session just started (sign-in, first-run setup): its cookie set on the answer, and its `{ data }`. */
export function asSignedIn(
  ctx: Pick<AppContext, "config">,
  headers: Record<string, unknown>,
  { signedIn, token, session }: { signedIn: UserWithRole; token: string; session: Session },
) {
  headers["set-cookie"] = sessionCookie(token, lifetimeSeconds(ctx), cookieIsSecure(ctx.config.appUrl));
  return { data: toSessionJson(signedIn, session) };
}
