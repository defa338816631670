import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { listApiKeys, revokeApiKey } from "../api-keys/api.ts";
import { NewApiKeyForm } from "../api-keys/form.tsx";
import { ApiKeyList } from "../api-keys/list.tsx";
import { isolated } from "../bidi.ts";
import { ShownOnce } from "../created-panel.tsx";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NewPanel } from "../new-panel.tsx";
import type { PageProps } from "../pages.ts";
import { productOwners } from "../users/api.ts";
import type { ApiKey, NewApiKey } from "../wire.ts";

export function ApiKeys({ user, onSignedOut }: PageProps) {
  const { loading, reload, more } = useListing(listApiKeys, "The API keys could not be loaded.");
  const owners = useLoad(productOwners, "The users who may own licenses could not be loaded.");
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [revoking, setRevoking] = useState<number | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const revoke = async (key: ApiKey) => {
    if (!confirm(`Revoke “${isolated(key.name)}”? Anything using it will be refused from now on.`)) return;
    setRevoking(key.id);
    setRevokeError(null);
    try {
      await revokeApiKey(key.id);
      if (created?.id === key.id) setCreated(null);
    } catch (failure) {
      setRevokeError(messageOf(failure, "Revoking the API key failed."));
    }
    setRevoking(null);
    await reload();
  };

  return (
    <Layout user={user} title="API keys" onSignedOut={onSignedOut}>
      <p>
        An API key lets a storefront or a license server call the license API (<code>x-api-key: …</code>):
        create, read and validate licenses.
      </p>
      {created ? (
        <ShownOnce
          id="created-api-key"
          heading={
            <>
              API key “<bdi>{created.name}</bdi>” created
            </>
          }
          label="Your new API key"
          value={created.key}
          onDone={() => setCreated(null)}
        />
      ) : (
        <NewPanel label="New API key">
          {() => (
            <Loaded loading={owners.loading} label="Loading the form…">
              {(list) => (
                <NewApiKeyForm
                  owners={list}
                  onCreated={(key) => {
                    setCreated(key);
                    void reload();
                  }}
                />
              )}
            </Loaded>
          )}
        </NewPanel>
      )}
      <section aria-labelledby="api-key-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="api-key-list-heading">API keys</h2>
        <ErrorAlert message={revokeError} />
        <Loaded loading={loading} label="Loading API keys…">
          {({ items }) => <ApiKeyList keys={items} more={more} revoking={revoking} onRevoke={revoke} />}
        </Loaded>
      </section>
    </Layout>
  );
}
