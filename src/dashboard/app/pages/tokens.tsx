import { useEffect, useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { ShownOnce } from "../created-panel.tsx";
import { Layout } from "../layout.tsx";
import type { PageProps } from "../pages.ts";
import { listTokens, type NewToken, revokeToken, type Token } from "../tokens/api.ts";
import { NewTokenForm } from "../tokens/form.tsx";
import { TokenList } from "../tokens/list.tsx";

type Listing =
  | { state: "loading" }
  | { state: "failed"; message: string }
  | { state: "loaded"; tokens: Token[]; more: boolean };

export function Tokens({ user, onSignedOut }: PageProps) {
  const [listing, setListing] = useState<Listing>({ state: "loading" });
  const [created, setCreated] = useState<NewToken | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const load = () =>
    listTokens().then(
      ({ tokens, more }) => setListing({ state: "loaded", tokens, more }),
      (failure) =>
        setListing({ state: "failed", message: messageOf(failure, "The tokens could not be loaded.") }),
    );
  useEffect(() => {
    void load();
  }, []);

  const revoke = async (token: Token) => {
    if (!confirm(`Revoke “${token.name}”? Anything using it will be refused from now on.`)) return;
    setRevoking(token.id);
    setRevokeError(null);
    try {
      await revokeToken(token.id);
      if (created?.id === token.id) setCreated(null);
    } catch (failure) {
      setRevokeError(messageOf(failure, "Revoking the token failed."));
    }
    setRevoking(null);
    await load();
  };

  return (
    <Layout user={user} title="Personal access tokens" onSignedOut={onSignedOut}>
      <p>
        A token lets a CI job or a script call depot's API as you (<code>Authorization: Bearer …</code>), with
        only the abilities you give it.
      </p>
      {created ? (
        <ShownOnce
          id="created-token"
          heading={`Token “${created.name}” created`}
          label="Your new token"
          value={created.token}
          onDone={() => setCreated(null)}
        />
      ) : (
        <NewTokenForm
          user={user}
          onCreated={(token) => {
            setCreated(token);
            void load();
          }}
        />
      )}
      <section aria-labelledby="token-list-heading" aria-busy={listing.state === "loading"}>
        <h2 id="token-list-heading">Your tokens</h2>
        {revokeError && (
          <p class="error" role="alert">
            {revokeError}
          </p>
        )}
        {listing.state === "loading" && <p aria-live="polite">Loading tokens…</p>}
        {listing.state === "failed" && (
          <p class="error" role="alert">
            {listing.message}
          </p>
        )}
        {listing.state === "loaded" && (
          <TokenList tokens={listing.tokens} more={listing.more} revoking={revoking} onRevoke={revoke} />
        )}
      </section>
    </Layout>
  );
}
