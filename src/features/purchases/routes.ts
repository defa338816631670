import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { detailsOf } from "./details.ts";
import {
  CreatePurchaseBody,
  filterIds,
  PurchaseJson,
  PurchasePageJson,
  PurchaseQuery,
  wantsDetails,
} from "./schemas.ts";
import { assertFiltersExist, createPurchase, listPurchases, toPurchaseJson } from "./service.ts";

export const purchaseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/purchases",
      async ({ query, actor, request }) => {
        const [page, filters, details] = await validateAll(
          () => pageRequest(query),
          () => filterIds(query),
          () => wantsDetails(query.details),
        );
        const rows = await listPurchases(ctx, actor, filters, page);
        if (rows.length === 0) await assertFiltersExist(ctx, filters);
        const detailOf = details
          ? await detailsOf(
              ctx,
              rows.map((row) => row.purchase),
            )
          : null;
        const json = rows.map((row) => ({ ...toPurchaseJson(row), ...detailOf?.(row.purchase) }));
        return simplePage(json, page, request);
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
