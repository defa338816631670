import { useState } from "preact/hooks";
import { messageOf, post, setCsrfToken } from "../api.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import type { PageProps } from "../pages.ts";
import { NameForm } from "../profile/name-form.tsx";
import { PasswordForm } from "../profile/password-form.tsx";
import { UserFacts } from "./user-facts.tsx";

export function Profile({ user, onSignedOut, onUserChanged }: PageProps) {
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
      setError(messageOf(failure, "Signing out everywhere failed."));
      setBusy(false);
    }
  };

  return (
    <Layout user={user} title="Profile" onSignedOut={onSignedOut}>
      <UserFacts user={user} />
      <NameForm user={user} onSaved={onUserChanged} />
      <PasswordForm user={user} />
      <section class="panel" aria-labelledby="everywhere-heading">
        <h2 id="everywhere-heading">Sessions</h2>
        <p>
          Signs you out of the dashboard in every browser, this one too. Personal access tokens keep working;
          revoke those on the Tokens page.
        </p>
        <ErrorAlert message={error} />
        <button type="button" onClick={signOutEverywhere} disabled={busy}>
          {busy ? "Signing out…" : "Sign out everywhere"}
        </button>
      </section>
    </Layout>
  );
}
