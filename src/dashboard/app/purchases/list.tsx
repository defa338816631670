// Purchases, newest first: product and option, buyer, price and date.
import { formatDate } from "../dates.ts";
import type { More } from "../listing.ts";
import { ShowMore } from "../show-more.tsx";
import type { Purchase } from "../wire.ts";

export function PurchaseList({ purchases, more }: { purchases: Purchase[]; more: More }) {
  if (purchases.length === 0) {
    return <p class="empty">No purchases yet. Purchases appear here once they are recorded.</p>;
  }
  return (
    <>
      <ul class="rows">
        {purchases.map((purchase) => (
          <li key={purchase.id} class="row">
            <div class="row-main">
              <strong class="row-name">
                <bdi>{purchase.product.name}</bdi>
                {purchase.option && (
                  <>
                    {" · "}
                    <bdi>{purchase.option.name}</bdi>
                  </>
                )}
              </strong>
              <span class="hint">
                Bought by <bdi>{purchase.buyer.name}</bdi> (<bdi>{purchase.buyer.email}</bdi>)
              </span>
              <span class="hint">
                {purchase.quantity > 1 ? `${purchase.quantity} × ` : ""}
                {purchase.formatted_price}
                {" · "}
                <time dateTime={purchase.created_at}>{formatDate(purchase.created_at)}</time>
              </span>
            </div>
          </li>
        ))}
      </ul>
      <ShowMore more={more} noun="purchases" />
    </>
  );
}
