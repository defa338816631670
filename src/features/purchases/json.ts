import { t } from "elysia";
import { simplePage, simplePageOf } from "../../http/pagination.ts";
import { Int } from "../../validation/schemas.ts";
import type { PurchaseDetails } from "./details.ts";
import { formatPrice, type PurchaseRow, type purchasePage } from "./service.ts";

const DateTime = t.String({ format: "date-time" });

/** A purchase as the API shows it. */
export const PurchaseJson = t.Object({
  id: Int(),
  order_id: Int(),
  product_id: Int(),
  quantity: Int(),
  created_at: DateTime,
  updated_at: DateTime,
  unit_price: t.Number(),
  unit_price_currency_id: Int(),
  original_currency_id: Int(),
  original_unit_price: t.Number(),
  currency_rate: t.Number(),
  formatted_price: t.String({ description: 'the unit price with its currency symbol, e.g. "$19.99"' }),
  // Only with `?details=1` (the dashboard's list); the interface's purchase has none of them.
  product: t.Optional(t.Object({ id: Int(), name: t.String() })),
  option: t.Optional(t.Union([t.Object({ id: Int(), name: t.String() }), t.Null()])),
  buyer: t.Optional(t.Object({ id: Int(), name: t.String(), email: t.String() })),
});

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

/** A page of purchases (Laravel simple pagination). */
export const PurchasePageJson = simplePageOf(PurchaseJson);

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
