import type { User } from "../wire.ts";

/** Who is signed in: name, e-mail and role (Home and Profile). */
export function UserFacts({ user }: { user: User }) {
  return (
    <dl class="facts">
      <dt>Name</dt>
      <dd dir="auto">{user.name}</dd>
      <dt>Email</dt>
      <dd dir="auto">{user.email}</dd>
      <dt>Role</dt>
      <dd dir="auto">{user.role.name}</dd>
    </dl>
  );
}
