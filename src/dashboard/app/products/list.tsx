// The products a user manages as a table: each a link to its page, its flags, the counts the API adds
// with ?counts=1 (versions, the latest, licenses, validations in 7 days) and its row actions.

import type { Listing, More } from "../listing.ts";
import { NavLink } from "../nav.tsx";
import { productPath } from "../paths.ts";
import { ShowMore } from "../show-more.tsx";
import { type Column, Table } from "../table.tsx";
import type { Product } from "../wire.ts";
import { ProductFlags } from "./flags.tsx";

interface Props {
  listing: Listing<Product>;
  more: More;
  search: string;
  /** What an empty list says when nothing was searched for: who makes products differs by role. */
  empty: string;
  /** An admin changes a product's settings too. */
  admin: boolean;
}

/** A count in the reader's locale; a product listed without counts shows none. */
const counted = (value: number | undefined) => (value === undefined ? "—" : value.toLocaleString());

function columns(admin: boolean): Column<Product>[] {
  return [
    {
      label: "Product",
      sortBy: (product) => product.name.toLocaleLowerCase(),
      cell: (product) => (
        <>
          <NavLink href={productPath(product.id)}>
            <bdi>{product.name}</bdi>
          </NavLink>{" "}
          <ProductFlags product={product} />
        </>
      ),
    },
    {
      label: "Versions",
      numeric: true,
      sortBy: (product) => product.counts?.versions ?? 0,
      cell: (product) => counted(product.counts?.versions),
    },
    {
      label: "Latest",
      cell: (product) =>
        product.counts?.latest_version ? (
          <bdi class="version-number">{product.counts.latest_version}</bdi>
        ) : (
          <span class="hint">None yet</span>
        ),
    },
    {
      label: "Licenses",
      numeric: true,
      sortBy: (product) => product.counts?.licenses ?? 0,
      cell: (product) => counted(product.counts?.licenses),
    },
    {
      label: "Validations, 7 days",
      numeric: true,
      sortBy: (product) => product.counts?.validations_7d ?? 0,
      cell: (product) => counted(product.counts?.validations_7d),
    },
    {
      label: "Actions",
      cell: (product) => (
        <span class="row-actions">
          <NavLink href={productPath(product.id, "/licenses")}>
            Licenses<span class="visually-hidden"> of {product.name}</span>
          </NavLink>
          {admin && (
            <NavLink href={productPath(product.id, "/settings")}>
              Settings<span class="visually-hidden"> of {product.name}</span>
            </NavLink>
          )}
        </span>
      ),
    },
  ];
}

export function ProductList({ listing, more, search, empty, admin }: Props) {
  if (listing.items.length === 0) {
    return (
      <p class="empty">
        {search ? (
          <>
            No products match “<bdi>{search}</bdi>”.
          </>
        ) : (
          empty
        )}
      </p>
    );
  }
  return (
    <>
      <Table
        caption="Your products"
        columns={columns(admin)}
        rows={listing.items}
        rowKey={(product) => product.id}
      />
      <ShowMore more={more} noun="products" />
    </>
  );
}
