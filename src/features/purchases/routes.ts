import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { FieldErrors, validateAll } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { publicUrl, simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { toId } from "../../validation/ids.ts";
import { CreatePurchaseBody, PurchaseJson, PurchasePageJson, PurchaseQuery } from "./schemas.ts";
import {
  assertFiltersExist,
  createPurchase,
  listPurchases,
  type PurchaseFilterIds,
  toPurchaseJson,
} from "./service.ts";

export const purchaseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/purchases",
      async ({ query, actor, request }) => {
        const [page, filters] = await validateAll(
          () => pageRequest(query),
          () => filterIds(query),
        );
        const rows = await listPurchases(ctx, actor, filters, page);
        if (rows.length === 0) await assertFiltersExist(ctx, filters);
        return simplePage(rows.map(toPurchaseJson), page, publicUrl(request.url, ctx.config.appUrl));
      },
      {
        auth: true,
        query: PurchaseQuery,
        response: { 200: PurchasePageJson, 401: MessageJson, 422: ValidationJson },
        detail: {
          summary: "List purchases, newest first (all with purchases.view; else your own and your products')",
          tags: ["Purchases"],
        },
      },
    )
    .post(
      "/api/admin/purchases",
      async ({ body, set }) => {
        set.status = 201;
        return { data: toPurchaseJson(await createPurchase(ctx, body)) };
      },
      {
        auth: "*",
        body: CreatePurchaseBody,
        response: { 201: dataOf(PurchaseJson), 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "Record a purchase (creates its order)", tags: ["Admin"] },
      },
    );

/** The query's filters as ids: one that cannot be an id is a 422 on its field; an empty one filters nothing. */
function filterIds(query: { user_id?: string; product_id?: string }): PurchaseFilterIds {
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
