import { useState } from "preact/hooks";
import { Field } from "../field.tsx";
import { Layout } from "../layout.tsx";
import { useListing } from "../listing.ts";
import { Loaded } from "../loaded.tsx";
import { NavLink } from "../nav.tsx";
import type { PageProps } from "../pages.ts";
import { NEW_PRODUCT_PATH } from "../paths.ts";
import { listProducts } from "../products/api.ts";
import { ProductList } from "../products/list.tsx";
import { isAdmin } from "../session.ts";

/** The products the user manages (all of them for products.manage), with a search by name. */
export function Products({ user, onSignedOut }: PageProps) {
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  const { loading, more } = useListing(() => listProducts(search), "The products could not be loaded.", [
    search,
  ]);
  // Only an admin may create products (POST /api/admin/products).
  const admin = isAdmin(user);

  return (
    <Layout user={user} title="Products" onSignedOut={onSignedOut}>
      {admin && (
        <p>
          <NavLink href={NEW_PRODUCT_PATH}>New product</NavLink>
        </p>
      )}
      <form
        class="search"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(typed.trim());
        }}
      >
        <Field
          id="product-search"
          label="Search by name"
          error={null}
          type="search"
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      <section aria-labelledby="product-list-heading" aria-busy={loading.state === "loading"}>
        <h2 id="product-list-heading" class="visually-hidden">
          Your products
        </h2>
        <Loaded loading={loading} label="Loading products…">
          {(listing) => (
            <ProductList
              listing={listing}
              more={more}
              search={search}
              admin={admin}
              empty={
                admin
                  ? "No products yet. Create the first with New product."
                  : "No products yet — an admin creates them for you."
              }
            />
          )}
        </Loaded>
      </section>
    </Layout>
  );
}
