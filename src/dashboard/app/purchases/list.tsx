// Purchases, newest first: product and option, buyer, price and date.
import { formatDate } from "../dates.ts";
import type { Purchase } from "./api.ts";

export function PurchaseList({ purchases, more }: { purchases: Purchase[]; more: boolean }) {
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
                {purchase.product.name}
                {purchase.option && ` · ${purchase.option.name}`}
              </strong>
              <span class="hint">
                Bought by {purchase.buyer.name} ({purchase.buyer.email})
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
      {more && <p class="hint">Only the newest {purchases.length} purchases are listed.</p>}
    </>
  );
}
