import { t } from "elysia";
import { FieldErrors, Invalid } from "../../errors.ts";
import { PageQuery } from "../../http/pagination.ts";
import { BodyId, toId } from "../../validation/ids.ts";
import { Int } from "../../validation/schemas.ts";
import { Price } from "../options/schemas.ts";
import type { PurchaseFilterIds } from "./service.ts";

/** Filters are strings so that "abc" and "1e3" get a clear 422 instead of a coercion. */
export const PurchaseQuery = t.Object({
  user_id: t.Optional(t.String({ description: "only this buyer's purchases" })),
  product_id: t.Optional(t.String({ description: "only purchases of this product" })),
  details: t.Optional(
    t.String({
      description: '"1": add product {id, name}, option {id, name} | null and buyer {id, name, email}',
    }),
  ),
  ...PageQuery,
});
export type PurchaseQuery = typeof PurchaseQuery.static;

const CurrencyCode = t.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217 code, e.g. USD" });

export const CreatePurchaseBody = t.Object(
  {
    user_id: BodyId,
    product_id: BodyId,
    option_id: t.Optional(t.Union([BodyId, t.Null()])),
    quantity: t.Optional(Int({ minimum: 1, maximum: 10_000 })),
    unit_price: Price,
    currency: t.Optional(CurrencyCode),
    original_unit_price: t.Optional(Price),
    original_currency: t.Optional(CurrencyCode),
  },
  { additionalProperties: false },
);
export type CreatePurchaseInput = typeof CreatePurchaseBody.static;

/** The query's filters as ids: one that cannot be an id is a 422 on its field; an empty one filters nothing. */
export function filterIds(query: { user_id?: string; product_id?: string }): PurchaseFilterIds {
  const errors = new FieldErrors();
  const id = (field: "user_id" | "product_id") => {
    const raw = query[field];
    // `?user_id=` from a form filters nothing, as Laravel reads it as null.
    if (raw === undefined || raw === "") return null;
    const parsed = toId(raw);
    if (parsed === null) errors.add(field, `The ${field.replace("_", " ")} field must be an integer.`);
    return parsed;
  };
  const ids = { userId: id("user_id"), productId: id("product_id") };
  errors.throwIfAny();
  return ids;
}

/** `?details=1` asks for the names; "0" or empty for none; anything else is a 422 on `details`. */
export function wantsDetails(raw: string | undefined): boolean {
  if (raw === undefined || raw === "" || raw === "0") return false;
  if (raw === "1") return true;
  throw new Invalid({ details: ["The details field must be 0 or 1."] });
}
