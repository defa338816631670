import { useState } from "preact/hooks";
import { ApiError, NetworkError, post, setCsrfToken } from "../api.ts";
import { TopNav } from "../nav.tsx";
import type { User } from "../session.ts";
import { PageHeading } from "./heading.tsx";

export function Profile({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const signOutEverywhere = async () => {
    setBusy(true);
    setError(null);
    try {
      await post("/api/auth/sign-out-everywhere");
      setCsrfToken(null);
      onSignedOut();
    } catch (failure) {
      // A 401 has already sent the reader to sign in (api.ts); anything else is shown here.
      setError(
        failure instanceof ApiError || failure instanceof NetworkError
          ? failure.message
          : "Signing out everywhere failed.",
      );
      setBusy(false);
    }
  };

  return (
    <>
      <TopNav onSignedOut={onSignedOut} />
      <main class="page">
        <PageHeading>Profile</PageHeading>
        <dl class="facts">
          <dt>Name</dt>
          <dd>{user.name}</dd>
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Role</dt>
          <dd>{user.role.name}</dd>
        </dl>
        <section class="panel" aria-labelledby="everywhere-heading">
          <h2 id="everywhere-heading">Sessions</h2>
          <p>
            Signs you out of the dashboard in every browser, this one too. Personal access tokens keep
            working; revoke those on the Tokens page.
          </p>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <button type="button" onClick={signOutEverywhere} disabled={busy}>
            {busy ? "Signing out…" : "Sign out everywhere"}
          </button>
        </section>
      </main>
    </>
  );
}
