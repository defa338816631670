// An unknown path, or a page the reader's role has no use for: the same "Page not found", so a page
// someone may not see does not tell them it exists.
import { Layout } from "../layout.tsx";
import { navigate } from "../router.ts";
import type { User } from "../wire.ts";
import { PageHeading } from "./heading.tsx";

function Explanation() {
  return (
    <p>
      There is no dashboard page here.{" "}
      <a
        href="/"
        onClick={(event) => {
          event.preventDefault();
          navigate("/");
        }}
      >
        Go to the dashboard home
      </a>
      .
    </p>
  );
}

/** Signed in, with the sidebar; signed out (never reached: sign-in comes first), alone. */
export function NotFound({ user, onSignedOut }: { user?: User; onSignedOut?: () => void }) {
  if (user && onSignedOut)
    return (
      <Layout user={user} title="Page not found" onSignedOut={onSignedOut}>
        <Explanation />
      </Layout>
    );
  return (
    <main class="page">
      <PageHeading>Page not found</PageHeading>
      <Explanation />
    </main>
  );
}
