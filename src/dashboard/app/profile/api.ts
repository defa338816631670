// The signed-in user's own name and password (README, HTTP API: /api/profile); the session only.
import { api, post } from "../api.ts";
import type { User } from "../session.ts";

export async function rename(name: string): Promise<User> {
  const answer = await api<{ data: User }>("PATCH", "/api/profile", { name });
  const { id, name: saved, email, role } = answer.data;
  // The session's shape: the role without its timestamps.
  return { id, name: saved, email, role: { id: role.id, name: role.name, permissions: role.permissions } };
}

/** Changes the password; the user's other sessions end, this one stays signed in. */
export async function changePassword(current: string, password: string, confirmation: string): Promise<void> {
  await post("/api/profile/password", {
    current_password: current,
    password,
    password_confirmation: confirmation,
  });
}
