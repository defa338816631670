import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { isolated } from "../bidi.ts";
import { ErrorAlert } from "../error-alert.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { useLoad } from "../load.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import { latestOf } from "../overview/api.ts";
import { ProductUsage } from "../overview/product-usage.tsx";
import type { PageProps } from "../pages.ts";
import { productPath } from "../paths.ts";
import { deleteVersion, listVersions, readManagedProduct } from "../products/api.ts";
import { ProductFlags } from "../products/flags.tsx";
import { PublishForm } from "../products/publish-form.tsx";
import { VersionList } from "../products/versions.tsx";
import { isAdmin } from "../session.ts";
import type { Product, ProductAccess, User, Version } from "../wire.ts";

/**
 * One product the user manages: its flags, links to its other pages, its usage charts, its versions
 * (each live rollout with how many clients took it) and, for those who may publish to it, Delete and
 * the publish form. Any other product is "Product not found.".
 */
export function ProductPage({ user, params, onSignedOut }: PageProps) {
  const id = params.product ?? "";
  const { loading } = useLoad(() => readManagedProduct(id), "The product could not be loaded.", [id]);
  const title =
    loading.state === "loaded" ? (
      <bdi>{loading.data.product.name}</bdi>
    ) : loading.state === "failed" ? (
      "Product"
    ) : (
      "Product…"
    );

  return (
    <Layout user={user} title={title} onSignedOut={onSignedOut}>
      <Loaded loading={loading} label="Loading the product…">
        {({ product, access }) => <ProductDetails user={user} product={product} access={access} />}
      </Loaded>
    </Layout>
  );
}

function ProductDetails({ user, product, access }: { user: User; product: Product; access: ProductAccess }) {
  const { loading, reload, more } = useListing(
    () => listVersions(product.id),
    "The versions could not be loaded.",
    [product.id],
  );
  const [deleting, setDeleting] = useState<number | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  // What the server says the user may do (the API decides all the same).
  const mayPublish = access.publish;
  // The settings page changes the product through the admin API.
  const mayChangeSettings = isAdmin(user);

  const remove = async (version: Version) => {
    if (
      !confirm(
        `Delete version ${isolated(version.version_number)}? Its file is removed and cannot be downloaded again.`,
      )
    )
      return;
    setDeleting(version.id);
    setDeleteError(null);
    try {
      await deleteVersion(product.id, version.id);
    } catch (failure) {
      setDeleteError(messageOf(failure, "Deleting the version failed."));
    }
    setDeleting(null);
    await reload();
  };

  return (
    <>
      <p class="product-facts">
        <ProductFlags product={product} /> <span class="hint">{product.downloads} downloads in all</span>
      </p>
      <nav aria-label="Product" class="product-links">
        <NavLink href={productPath(product.id, "/licenses")}>Licenses</NavLink>
        {mayChangeSettings && <NavLink href={productPath(product.id, "/settings")}>Settings</NavLink>}
      </nav>
      <ProductUsage
        product={product}
        latest={loading.state === "loaded" ? latestOf(loading.data.items) : undefined}
      >
        <section aria-labelledby="versions-heading" aria-busy={loading.state === "loading"}>
          <h2 id="versions-heading">Versions</h2>
          <ErrorAlert message={deleteError} />
          <Loaded loading={loading} label="Loading versions…">
            {(listing) => (
              <VersionList
                productId={product.id}
                listing={listing}
                more={more}
                mayDelete={mayPublish}
                deleting={deleting}
                onDelete={remove}
                onChanged={() => void reload()}
              />
            )}
          </Loaded>
        </section>
        {mayPublish && <PublishForm productId={product.id} onPublished={() => void reload()} />}
      </ProductUsage>
    </>
  );
}
