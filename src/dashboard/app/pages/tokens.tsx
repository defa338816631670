import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ShownOnce } from "../created-panel.tsx";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { Loaded } from "../loaded.tsx";
import { NewPanel } from "../new-panel.tsx";
import type { PageProps } from "../pages.ts";
import { listTokens, revokeToken } from "../tokens/api.ts";
import { NewTokenForm } from "../tokens/form.tsx";
import { TokenList } from "../tokens/list.tsx";
import type { NewToken, Token } from "../wire.ts";

export function Tokens({ user, onSignedOut }: PageProps) {
  const { loading, reload, more } = useListing(listTokens, "The tokens could not be loaded.");
  const [created, setCreated] = useState<NewToken | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const revoke = async (token: Token) => {
    if (!confirm(`Revoke “${isolated(token.name)}”? Anything using it will be refused from now on.`)) return;
    setRevoking(token.id);
    setRevokeError(null);
    try {
      await revokeToken(token.id);
      if (created?.id === token.id) setCreated(null);
    } catch (failure) {
      setRevokeError(messageOf(failure, "Revoking the token failed."));
    }
    setRevoking(null);
    await reload();
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
          heading={
            <>
              Token “<bdi>{created.name}</bdi>” created
            </>
          }
          label="Your new token"
          value={created.token}
          onDone={() => setCreated(null)}
        />
      ) : (
        <NewPanel label="New token">
          {() => (
            <NewTokenForm
              user={user}
              onCreated={(token) => {
                setCreated(token);
                void reload();
              }}
            />
          )}
        </NewPanel>
      )}
      <section aria-labelledby="token-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="token-list-heading">Your tokens</h2>
        <ErrorAlert message={revokeError} />
        <Loaded loading={loading} label="Loading tokens…">
          {({ items }) => <TokenList tokens={items} more={more} revoking={revoking} onRevoke={revoke} />}
        </Loaded>
      </section>
    </Layout>
  );
}
