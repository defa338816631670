import { and, desc, eq, isNull, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { currencies, orders, products, purchases, users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { FieldErrors, Invalid, validateAll } from "../../errors.ts";
import { type PageRequest, pageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { invalidIdMessage, toId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { centsError } from "../options/schemas.ts";
import { findOption } from "../options/service.ts";
import { detailsOf } from "./details.ts";
import {
  CreatePurchaseBody,
  type CreatePurchaseInput,
  filterIds,
  type PurchaseQuery,
  wantsDetails,
} from "./schemas.ts";

const purchaseColumns = {
  purchase: purchases,
  symbol: currencies.symbol,
  decimals: currencies.decimals,
};
export type PurchaseRow = { purchase: typeof purchases.$inferSelect; symbol: string; decimals: number };

/** The filters of a purchase list, as ids. */
export interface PurchaseFilterIds {
  userId: number | null;
  productId: number | null;
}

/**
 * Newest first. `purchases.view` sees every purchase; anyone else the purchases they made and those of
 * products they own. Filters narrow that further; one naming no user or product is a 422. Each
 * combination of visibility and filters is its own prepared query (a few shapes, each built once), so
 * no request assembles SQL.
 */
export async function listPurchases(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  filters: PurchaseFilterIds,
  page: PageRequest,
): Promise<PurchaseRow[]> {
  const me = actor.user.id;
  const owned = allows(actor.permissions, "purchases.view") ? null : await ownedProductIds(ctx, me);
  const visibility: Visibility = owned === null ? "all" : owned.length === 0 ? "mine" : "mine-or-owned";
  const shape = { visibility, byUser: filters.userId !== null, byProduct: filters.productId !== null };
  const name = `purchases_${visibility}_${shape.byUser ? "u" : ""}${shape.byProduct ? "p" : ""}`;
  const rows = await preparedOnce(ctx.db, name, (db) => prepareList(db, name, shape)).execute({
    me,
    owned: owned ?? [],
    userId: filters.userId,
    productId: filters.productId,
    limit: page.perPage + 1,
    offset: page.offset,
  });
  if (rows.length === 0) await assertFiltersExist(ctx, filters);
  return rows;
}

/**
 * `GET /api/purchases`: the page asked for, and the names behind its purchases when `?details=1`. The
 * filters are parsed here rather than by the query's schema, so that a bad page and a bad filter are
 * named in one 422.
 */
export async function purchasePage(ctx: Pick<AppContext, "db">, actor: Actor, query: PurchaseQuery) {
  const [page, filters, details] = await validateAll(
    () => pageRequest(query),
    () => filterIds(query),
    () => wantsDetails(query.details),
  );
  const rows = await listPurchases(ctx, actor, filters, page);
  const detailOf = details
    ? await detailsOf(
        ctx,
        rows.map((row) => row.purchase),
      )
    : undefined;
  return { page, rows, detailOf };
}

/** All purchases (`purchases.view`), the caller's own, or theirs and those of products they own. */
type Visibility = "all" | "mine" | "mine-or-owned";

function prepareList(
  db: Db,
  name: string,
  shape: { visibility: Visibility; byUser: boolean; byProduct: boolean },
) {
  const visible = {
    all: undefined,
    mine: eq(purchases.userId, sql.placeholder("me")),
    "mine-or-owned": or(
      eq(purchases.userId, sql.placeholder("me")),
      sql`${purchases.productId} = ANY(${sql.placeholder("owned")}::bigint[])`,
    ),
  }[shape.visibility];
  return db
    .select(purchaseColumns)
    .from(purchases)
    .innerJoin(currencies, eq(currencies.id, purchases.unitPriceCurrencyId))
    .where(
      and(
        shape.byUser ? eq(purchases.userId, sql.placeholder("userId")) : undefined,
        shape.byProduct ? eq(purchases.productId, sql.placeholder("productId")) : undefined,
        visible,
      ),
    )
    .orderBy(desc(purchases.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .prepare(name);
}

/**
 * For "mine, or of products I own" the owned products are looked up first: most users own none, and a
 * plain `user_id = me` is one index scan, where the OR with a sub-select would make PostgreSQL walk
 * the whole table backwards by id to fill a page.
 */
async function ownedProductIds(ctx: Pick<AppContext, "db">, me: number): Promise<number[]> {
  const rows = await preparedOnce(ctx.db, "products_owned_by", (db) =>
    db
      .select({ id: products.id })
      .from(products)
      .where(or(eq(products.userId, sql.placeholder("me")), eq(products.vendorId, sql.placeholder("me"))))
      .prepare("products_owned_by"),
  ).execute({ me });
  return rows.map((row) => row.id);
}

/**
 * A filter naming no user or product is a 422 (Laravel's `exists`). Asked only when a page came back
 * empty: a page with rows already proves its filters name something.
 */
async function assertFiltersExist(ctx: Pick<AppContext, "db">, filters: PurchaseFilterIds) {
  const errors = new FieldErrors();
  if (filters.userId !== null) {
    const found = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, filters.userId));
    if (found.length === 0) errors.add("user_id", invalidIdMessage("user_id"));
  }
  if (filters.productId !== null) {
    const found = await ctx.db
      .select({ id: products.id })
      .from(products)
      .where(eq(products.id, filters.productId));
    if (found.length === 0) errors.add("product_id", invalidIdMessage("product_id"));
  }
  errors.throwIfAny();
}

/**
 * The purchase's references and prices, checked all at once: every field that is present (the body
 * may be partial when its schema already failed) is checked, and all problems come in one 422.
 */
async function checkPurchase(ctx: Pick<AppContext, "db">, input: Partial<CreatePurchaseInput>) {
  const errors = new FieldErrors();
  errors.merge(centsError("unit_price", input.unit_price));
  errors.merge(centsError("original_unit_price", input.original_unit_price));
  // The customer's price and currency come together, or the rate between them means nothing.
  if ((input.original_unit_price === undefined) !== (input.original_currency === undefined)) {
    const missing = input.original_currency === undefined ? "original_currency" : "original_unit_price";
    const other = missing === "original_currency" ? "original unit price" : "original currency";
    errors.add(missing, `The ${missing.replaceAll("_", " ")} field is required when ${other} is present.`);
  }
  const record = (field: string) => errors.add(field, invalidIdMessage(field));
  const userId = input.user_id === undefined ? null : toId(input.user_id);
  const productId = input.product_id === undefined ? null : toId(input.product_id);
  const optionId = input.option_id === undefined || input.option_id === null ? null : toId(input.option_id);
  if (input.user_id !== undefined) {
    const [user] =
      userId === null ? [] : await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, userId));
    if (!user) record("user_id");
  }
  if (input.product_id !== undefined) {
    const [product] =
      productId === null
        ? []
        : await ctx.db
            .select({ id: products.id })
            .from(products)
            .where(and(eq(products.id, productId), isNull(products.deletedAt)));
    if (!product) record("product_id");
    else if (optionId !== null && !(await findOption(ctx, product.id, optionId))) record("option_id");
  }
  if (input.option_id !== undefined && input.option_id !== null && optionId === null) record("option_id");
  const currency = await currencyByCode(ctx.db, input.currency ?? "USD");
  if (!currency) record("currency");
  const original = input.original_currency ? await currencyByCode(ctx.db, input.original_currency) : currency;
  if (input.original_currency && !original) record("original_currency");
  errors.throwIfAny();
  if (!currency || !original) throw new Invalid(errors.messages); // recorded above
  return { userId: userId as number, productId: productId as number, optionId, currency, original };
}

/** A purchase: its fields, a buyer, a live product and its option, and currencies that exist. */
export const NewPurchaseForm = form(CreatePurchaseBody, (ctx, fields) => checkPurchase(ctx, fields));

/** Records a purchase and the order it belongs to, in one transaction. */
export async function createPurchase(ctx: Pick<AppContext, "db">, input: CreatePurchaseInput) {
  const { userId, productId, optionId, currency, original } = await checkPurchase(ctx, input);

  const quantity = input.quantity ?? 1;
  const unitPrice = input.unit_price;
  const originalPrice = input.original_unit_price ?? unitPrice;
  // The rate turns the customer's price into the recorded one: original × rate = unit price.
  const rate = originalPrice > 0 ? unitPrice / originalPrice : 1;
  const purchase = await withTransaction(ctx, async (tx) => {
    const [order] = await tx.db
      .insert(orders)
      .values({
        userId,
        currencyId: currency.id,
        total: ((Math.round(unitPrice * 100) * quantity) / 100).toFixed(2),
      })
      .returning({ id: orders.id });
    if (!order) throw new Error("order insert returned nothing");
    const [row] = await tx.db
      .insert(purchases)
      .values({
        orderId: order.id,
        userId,
        productId,
        optionId,
        quantity,
        unitPrice: unitPrice.toFixed(2),
        unitPriceCurrencyId: currency.id,
        originalUnitPrice: originalPrice.toFixed(2),
        originalCurrencyId: original.id,
        currencyRate: rate.toFixed(8),
      })
      .returning();
    if (!row) throw new Error("purchase insert returned nothing");
    return row;
  });
  return { purchase, symbol: currency.symbol, decimals: currency.decimals };
}

async function currencyByCode(db: Db, code: string) {
  const [currency] = await db.select().from(currencies).where(eq(currencies.code, code));
  return currency ?? null;
}

const money = new Map<number, Intl.NumberFormat>();

/** "$1,299.00": the currency's symbol and its number of decimals. */
export function formatPrice(amount: number, symbol: string, decimals: number): string {
  let format = money.get(decimals);
  if (!format) {
    format = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    });
    money.set(decimals, format);
  }
  return `${symbol}${format.format(amount)}`;
}
