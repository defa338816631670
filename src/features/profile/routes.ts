import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { requestState } from "../../http/request-state.ts";
import { answers, noContent } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { toUserData, UserData } from "../users/json.ts";
import { UpdateProfileBody } from "./schemas.ts";
import { changeOwnPassword, PasswordChangeForm, renameUser } from "./service.ts";

/** A token is for machines: a script must not be able to rename its user or take over their password. */
const PROFILE_IN_DASHBOARD = "Your profile is changed in the dashboard.";

/** The signed-in user's own name and password (the dashboard's Profile page); the session only. */
export const profileRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/profile", tags: ["Dashboard"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .patch("", async ({ body, actor }) => toUserData(await renameUser(ctx, actor.user.id, body.name)), {
      sessionOnly: PROFILE_IN_DASHBOARD,
      body: UpdateProfileBody,
      ...answers("Change your name (dashboard session)", { 200: UserData }, 422),
    })
    .post(
      "/password",
      ({ body, session, request }) =>
        noContent(changeOwnPassword(ctx, session, requestState(request).ip, body)),
      {
        sessionOnly: PROFILE_IN_DASHBOARD,
        ...input(PasswordChangeForm),
        ...answers(
          "Change your password (dashboard session); your other sessions end, this one stays",
          {},
          429,
        ),
      },
    );
