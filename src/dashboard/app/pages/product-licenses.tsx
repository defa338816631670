import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ShownOnce } from "../created-panel.tsx";
import { ErrorAlert } from "../error-alert.tsx";
import { Field } from "../field.tsx";
import { Layout } from "../layout.tsx";
import { listLicenses, revokeLicense } from "../licenses/api.ts";
import { NewLicenseForm } from "../licenses/form.tsx";
import { LicenseList } from "../licenses/list.tsx";
import { useListing } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NewPanel } from "../new-panel.tsx";
import type { PageProps } from "../pages.ts";
import { listPolicies } from "../policies/api.ts";
import { NewPolicyForm, PolicyList } from "../policies/section.tsx";
import { readManagedProduct } from "../products/api.ts";
import type { License } from "../wire.ts";

/**
 * A product's licenses (`/dashboard/products/:product/licenses`), reached from the product's page: for
 * those who manage the product; any other product is "Product not found.".
 */
export function ProductLicenses({ user, params, onSignedOut }: PageProps) {
  const productId = params.product ?? "";
  const product = useLoad(() => readManagedProduct(productId), "The product could not be loaded.");
  const name = product.loading.state === "loaded" ? product.loading.data.product.name : null;
  return (
    <Layout
      user={user}
      title={
        name ? (
          <>
            Licenses of <bdi>{name}</bdi>
          </>
        ) : (
          "Licenses"
        )
      }
      onSignedOut={onSignedOut}
    >
      <Loaded loading={product.loading} label="Loading the product…">
        {() => <LicensesOfProduct productId={productId} />}
      </Loaded>
    </Layout>
  );
}

function LicensesOfProduct({ productId }: { productId: string }) {
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const [created, setCreated] = useState<License | null>(null);
  const [revoking, setRevoking] = useState<string | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const policies = useLoad(() => listPolicies(productId), "The license policies could not be loaded.", [
    productId,
  ]);
  const policyList = policies.loading.state === "loaded" ? policies.loading.data : [];
  const { loading, reload, more } = useListing(
    () => listLicenses(productId, search),
    "The licenses could not be loaded.",
    [search],
  );

  const revoke = async (license: License) => {
    if (!confirm(`Revoke the license of ${isolated(license.owner.email)}? It stops working at once.`)) return;
    setRevoking(license.id);
    setRevokeError(null);
    try {
      await revokeLicense(productId, license.id);
    } catch (failure) {
      setRevokeError(messageOf(failure, "Revoking the license failed."));
    }
    setRevoking(null);
    await reload();
  };

  return (
    <>
      {created ? (
        <ShownOnce
          id="created-license-key"
          heading={
            <>
              License created for <bdi>{created.owner.name}</bdi>
            </>
          }
          label="New license key"
          value={created.key}
          note={
            <>
              Send this key to <bdi>{created.owner.email}</bdi>; it is also in the list below.
            </>
          }
          onDone={() => setCreated(null)}
        />
      ) : (
        <NewPanel label="New license">
          {() => (
            <NewLicenseForm
              productId={productId}
              policies={policyList}
              onCreated={(license) => {
                setCreated(license);
                void reload();
              }}
            />
          )}
        </NewPanel>
      )}
      <section aria-labelledby="policy-list-heading">
        <h2 id="policy-list-heading">License policies</h2>
        <NewPanel label="New policy">
          {(close) => (
            <NewPolicyForm
              productId={productId}
              onCreated={() => {
                close();
                void policies.reload();
              }}
            />
          )}
        </NewPanel>
        <Loaded loading={policies.loading} label="Loading policies…">
          {(items) => (
            <PolicyList
              productId={productId}
              policies={items}
              onChanged={() => {
                // Its licenses follow a change, and keep their numbers when it goes.
                void policies.reload();
                void reload();
              }}
            />
          )}
        </Loaded>
      </section>
      <section aria-labelledby="license-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="license-list-heading">Licenses</h2>
        <form
          class="search"
          aria-label="Search licenses"
          onSubmit={(event) => {
            event.preventDefault();
            setSearch(typed.trim());
          }}
        >
          <Field
            id="license-search"
            label="Search by key or owner"
            error={null}
            type="search"
            name="search"
            maxLength={255}
            value={typed}
            onInput={(event) => setTyped(event.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </form>
        <ErrorAlert message={revokeError} />
        <Loaded loading={loading} label="Loading licenses…">
          {({ items }) => (
            <LicenseList
              productId={productId}
              licenses={items}
              policies={policyList}
              more={more}
              search={search}
              revoking={revoking}
              onRevoke={revoke}
              onChanged={() => void reload()}
            />
          )}
        </Loaded>
      </section>
    </>
  );
}
