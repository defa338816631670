import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { Invalid } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { readSessionCookie } from "../sessions/cookie.ts";
import { attemptSubject, SignInThrottle } from "../sessions/sign-in-throttle.ts";
import { UserJson } from "../users/schemas.ts";
import { toUserJson } from "../users/service.ts";
import { ChangePasswordBody, UpdateProfileBody } from "./schemas.ts";
import { changePassword, renameUser } from "./service.ts";

const tags = ["Dashboard"];

/** A token is for machines: a script must not be able to rename its user or take over their password. */
export const PROFILE_IN_DASHBOARD = "Your profile is changed in the dashboard.";

/** The signed-in user's own name and password (the dashboard's Profile page); the session only. */
export const profileRoutes = (ctx: AppContext) => {
  // Guessing the current password is guessing a sign-in: the same limits (5 a minute per user, 20
  // per address), so a session left open cannot be used to find the password it was opened with.
  const throttle = new SignInThrottle(ctx.db, "password");
  return new Elysia()
    .use(bearerAuth(ctx))
    .patch(
      "/api/profile",
      async ({ body, actor }) => ({ data: toUserJson(await renameUser(ctx, actor.user.id, body.name)) }),
      {
        sessionOnly: PROFILE_IN_DASHBOARD,
        body: UpdateProfileBody,
        response: {
          200: dataOf(UserJson),
          401: MessageJson,
          403: MessageJson,
          419: MessageJson,
          422: ValidationJson,
        },
        detail: { summary: "Change your name (dashboard session)", tags },
      },
    )
    .post(
      "/api/profile/password",
      async ({ body, actor, request, set }) => {
        // sessionOnly let only a live session cookie through: it is the session to keep.
        const current = sha256Hex(readSessionCookie(request) ?? "");
        const ip = requestState(request).ip;
        const subject = attemptSubject(actor.user, actor.user.email);
        await throttle.begin(subject, ip);
        try {
          await changePassword(ctx, actor.user.id, current, body);
        } catch (error) {
          // Only a wrong current password counts as a failed attempt.
          if (!(error instanceof Invalid && error.errors.current_password))
            await throttle.succeeded(subject, ip);
          throw error;
        }
        await throttle.succeeded(subject, ip);
        set.status = 204;
      },
      {
        sessionOnly: PROFILE_IN_DASHBOARD,
        body: ChangePasswordBody,
        response: {
          401: MessageJson,
          403: MessageJson,
          419: MessageJson,
          422: ValidationJson,
          429: MessageJson,
        },
        detail: {
          summary: "Change your password (dashboard session); your other sessions end, this one stays",
          tags,
        },
      },
    );
};
