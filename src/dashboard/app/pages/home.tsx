import { Layout } from "../layout.tsx";
import type { PageProps } from "../pages.ts";
import { UserFacts } from "./user-facts.tsx";

export function Home({ user, onSignedOut }: PageProps) {
  return (
    <Layout
      user={user}
      title={
        <>
          Welcome, <bdi>{user.name}</bdi>
        </>
      }
      onSignedOut={onSignedOut}
    >
      <UserFacts user={user} />
    </Layout>
  );
}
