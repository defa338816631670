// The signed-in user's own name and password (docs/reference/http-api.md, HTTP API: /api/profile); the session only.
import { api, post } from "../api.ts";
import type { PasswordChange, User, UserRecord } from "../wire.ts";

export async function rename(name: string): Promise<User> {
  const answer = await api<{ data: UserRecord }>("PATCH", "/api/profile", { name });
  const { id, name: saved, email, role } = answer.data;
  // The session's shape: the role without its timestamps.
  return { id, name: saved, email, role: { id: role.id, name: role.name, permissions: role.permissions } };
}

/** Changes the password; the user's other sessions end, this one stays signed in. */
export async function changePassword(change: PasswordChange): Promise<void> {
  await post("/api/profile/password", change);
}
