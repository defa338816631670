import { TopNav } from "../nav.tsx";
import type { User } from "../session.ts";
import { PageHeading } from "./heading.tsx";

export function Home({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
  return (
    <>
      <TopNav onSignedOut={onSignedOut} />
      <main class="page">
        <PageHeading>Welcome, {user.name}</PageHeading>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{user.name}</dd>
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role.name}</dd>
        </dl>
      </main>
    </>
  );
}
