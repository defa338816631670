import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { requestState } from "../../http/request-state.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { readSessionCookie } from "../sessions/cookie.ts";
import { UserJson } from "../users/schemas.ts";
import { toUserJson } from "../users/service.ts";
import { UpdateProfileBody } from "./schemas.ts";
import { changeOwnPassword, PasswordChangeForm, renameUser } from "./service.ts";

const tags = ["Dashboard"];

/** A token is for machines: a script must not be able to rename its user or take over their password. */
const PROFILE_IN_DASHBOARD = "Your profile is changed in the dashboard.";

/** The signed-in user's own name and password (the dashboard's Profile page); the session only. */
export const profileRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .patch(
      "/api/profile",
      async ({ body, actor }) => ({ data: toUserJson(await renameUser(ctx, actor.user.id, body.name)) }),
      {
        sessionOnly: PROFILE_IN_DASHBOARD,
        body: UpdateProfileBody,
        response: { 200: dataOf(UserJson), ...refusals(422) },
        detail: { summary: "Change your name (dashboard session)", tags },
      },
    )
    .post(
      "/api/profile/password",
      async ({ body, actor, request, set }) => {
        // sessionOnly let only a live session cookie through: it is the session to keep.
        const current = sha256Hex(readSessionCookie(request) ?? "");
        await changeOwnPassword(ctx, actor.user, current, requestState(request).ip, body);
        set.status = 204;
      },
      {
        sessionOnly: PROFILE_IN_DASHBOARD,
        ...input(PasswordChangeForm),
        response: refusals(429),
        detail: {
          summary: "Change your password (dashboard session); your other sessions end, this one stays",
          tags,
        },
      },
    );
