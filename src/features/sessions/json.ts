import type { Session } from "../../db/schema/index.ts";
import type { UserWithRole } from "../users/service.ts";

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
