import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import type { PageProps } from "../pages.ts";
import { listProducts } from "../product-admin/api.ts";
import { listPurchases } from "../purchases/api.ts";
import { NewPurchaseForm } from "../purchases/form.tsx";
import { PurchaseList } from "../purchases/list.tsx";
import { can, isAdmin } from "../session.ts";

export function Purchases({ user, onSignedOut }: PageProps) {
  const { loading, reload, more } = useListing(listPurchases, "The purchases could not be loaded.");
  const admin = isAdmin(user);
  return (
    <Layout user={user} title="Purchases" onSignedOut={onSignedOut}>
      <p>
        {can(user, "purchases.view")
          ? "Every purchase, newest first."
          : "Your purchases, and those of products you own, newest first."}
      </p>
      {admin && <PurchaseFormLoader onCreated={() => void reload()} />}
      <section aria-labelledby="purchase-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="purchase-list-heading">Purchases</h2>
        <Loaded loading={loading} label="Loading purchases…">
          {({ items }) => <PurchaseList purchases={items} more={more} />}
        </Loaded>
      </section>
    </Layout>
  );
}

function PurchaseFormLoader({ onCreated }: { onCreated: () => void }) {
  const { loading } = useLoad(listProducts, "The products could not be loaded.");
  return (
    <Loaded loading={loading} label="Loading the form…">
      {(products) => <NewPurchaseForm products={products} onCreated={onCreated} />}
    </Loaded>
  );
}
