// The products a user manages, each a link to its page, with its flags.

import type { Listing, More } from "../listing.ts";
import { NavLink } from "../nav.tsx";
import { productPath } from "../paths.ts";
import { ShowMore } from "../show-more.tsx";
import type { Product } from "../wire.ts";
import { ProductFlags } from "./flags.tsx";

interface Props {
  listing: Listing<Product>;
  more: More;
  search: string;
  /** What an empty list says when nothing was searched for: who makes products differs by role. */
  empty: string;
}

export function ProductList({ listing, more, search, empty }: Props) {
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
      <ul class="rows">
        {listing.items.map((product) => (
          <li key={product.id} class="row">
            <NavLink href={productPath(product.id)}>
              <bdi>{product.name}</bdi>
            </NavLink>
            <ProductFlags product={product} />
          </li>
        ))}
      </ul>
      <ShowMore more={more} noun="products" />
    </>
  );
}
