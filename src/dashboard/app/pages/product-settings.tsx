import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { PRODUCTS_PATH, productPath } from "../paths.ts";
import { deleteProduct, readProduct } from "../product-admin/api.ts";
import { ProductOptions } from "../product-admin/options.tsx";
import { ProductSettingsForm } from "../product-admin/settings-form.tsx";
import { navigate } from "../router.ts";
import { isAdmin } from "../session.ts";
import type { Product } from "../wire.ts";

/** A product's settings, which the admin API changes: for admins; anyone else is told so. */
export function ProductSettings({ user, params, onSignedOut }: PageProps) {
  // A 404 (unknown, or not the reader's to see) arrives as depot's "Product not found.".
  const { loading } = useLoad(() => readProduct(params.product ?? ""), "The product could not be loaded.");
  const [saved, setSaved] = useState<Product | null>(null);
  const product = saved ?? (loading.state === "loaded" ? loading.data : null);
  const title = product ? (
    <>
      Settings of <bdi>{product.name}</bdi>
    </>
  ) : (
    "Product settings"
  );

  return (
    <Layout user={user} title={title} onSignedOut={onSignedOut}>
      <Loaded loading={loading} label="Loading the product…">
        {(loaded) => {
          const shown = saved ?? loaded;
          if (shown.deleted_at)
            return <p class="notice">This product was deleted; its settings cannot change.</p>;
          if (!isAdmin(user)) return <p class="notice">Only admins change a product's settings.</p>;
          return (
            <>
              <p>
                <NavLink href={productPath(shown.id)}>
                  Back to <bdi>{shown.name}</bdi>
                </NavLink>
              </p>
              <ProductSettingsForm product={shown} onSaved={setSaved} />
              <ProductOptions productId={shown.id} />
              <DeleteProduct product={shown} />
            </>
          );
        }}
      </Loaded>
    </Layout>
  );
}

function DeleteProduct({ product }: { product: Product }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    const question = `Delete “${isolated(product.name)}”? It leaves the storefront and the lists; its purchases, licenses and versions are kept.`;
    if (!confirm(question)) return;
    setBusy(true);
    setError(null);
    try {
      await deleteProduct(product.id);
      navigate(PRODUCTS_PATH);
    } catch (failure) {
      setError(messageOf(failure, "Deleting the product failed."));
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="delete-product-heading">
      <h2 id="delete-product-heading">Delete product</h2>
      <p class="hint">
        A soft delete: purchases, licenses and versions stay, the product is no longer listed.
      </p>
      <ErrorAlert message={error} />
      <button type="button" class="danger" onClick={remove} disabled={busy}>
        {busy ? "Deleting…" : "Delete product"}
      </button>
    </section>
  );
}
