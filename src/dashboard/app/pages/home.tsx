import { useState } from "preact/hooks";
import { ApiError, NetworkError } from "../api.ts";
import { signOut, type User } from "../session.ts";
import { PageHeading } from "./heading.tsx";

export function Home({ user, onSignedOut }: { user: User; onSignedOut: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const leave = async () => {
    setBusy(true);
    setError(null);
    try {
      await signOut();
      onSignedOut();
    } catch (failure) {
      setError(
        failure instanceof ApiError || failure instanceof NetworkError
          ? failure.message
          : "Signing out failed.",
      );
      setBusy(false);
    }
  };

  return (
    <main class="page">
      <header class="bar">
        <span class="brand">depot</span>
        <button type="button" onClick={leave} disabled={busy}>
          Sign out
        </button>
      </header>
      <PageHeading>Welcome, {user.name}</PageHeading>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{user.name}</dd>
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Role</dt>
        <dd>{user.role.name}</dd>
      </dl>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </main>
  );
}
