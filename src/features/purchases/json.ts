import { simplePage } from "../../http/pagination.ts";
import type { PurchaseDetails } from "./details.ts";
import { formatPrice, type PurchaseRow, type purchasePage } from "./service.ts";

/** The API's purchase; with `details` (`?details=1`), the names of its product, option and buyer too. */
export const toPurchaseJson = ({ purchase, symbol, decimals }: PurchaseRow, details?: PurchaseDetails) => ({
  id: purchase.id,
  order_id: purchase.orderId,
  product_id: purchase.productId,
  quantity: purchase.quantity,
  created_at: purchase.createdAt.toISOString(),
  updated_at: purchase.updatedAt.toISOString(),
  unit_price: Number(purchase.unitPrice),
  unit_price_currency_id: purchase.unitPriceCurrencyId,
  original_currency_id: purchase.originalCurrencyId,
  original_unit_price: Number(purchase.originalUnitPrice),
  currency_rate: Number(purchase.currencyRate),
  formatted_price: formatPrice(Number(purchase.unitPrice), symbol, decimals),
  ...details,
});

/** A page of purchases (`simplePage`), each with its names when they were asked for. */
export const toPurchasePageJson = (
  { page, rows, detailOf }: Awaited<ReturnType<typeof purchasePage>>,
  request: Request,
) =>
  simplePage(
    rows.map((row) => toPurchaseJson(row, detailOf?.(row.purchase))),
    page,
    request,
  );
