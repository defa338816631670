import { TopNav } from "../nav.tsx";
import type { User } from "../session.ts";
import { PageHeading } from "./heading.tsx";
import { UserFacts } from "./user-facts.tsx";

export function Home({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
  return (
    <>
      <TopNav onSignedOut={onSignedOut} />
      <main class="page">
        <PageHeading>Welcome, {user.name}</PageHeading>
        <UserFacts user={user} />
      </main>
    </>
  );
}
