import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { bearerAuth } from "../auth/guards.ts";
import { detailsOf } from "./details.ts";
import { toPurchaseJson } from "./json.ts";
import { filterIds, PurchaseJson, PurchasePageJson, PurchaseQuery, wantsDetails } from "./schemas.ts";
import { createPurchase, listPurchases, NewPurchaseForm } from "./service.ts";

export const purchaseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    // The filters are parsed here rather than by the query's schema, so that a bad page and a bad
    // filter are named in one 422.
    .get(
      "/api/purchases",
      async ({ query, actor, request }) => {
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
        return simplePage(
          rows.map((row) => toPurchaseJson(row, detailOf?.(row.purchase))),
          page,
          request,
        );
      },
      {
        auth: true,
        query: PurchaseQuery,
        response: { 200: PurchasePageJson, ...refusals(422) },
        detail: {
          summary: "List purchases, newest first (all with purchases.view; else your own and your products')",
          tags: ["Purchases"],
        },
      },
    )
    .post(
      "/api/admin/purchases",
      async ({ body, status }) => status(201, { data: toPurchaseJson(await createPurchase(ctx, body)) }),
      {
        auth: "*",
        ...input(NewPurchaseForm),
        response: { 201: dataOf(PurchaseJson) },
        detail: { summary: "Record a purchase (creates its order)", tags: ["Admin"] },
      },
    );
