import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { adminApi } from "../products/admin-api.ts";
import { PurchaseJson, PurchasePageJson, toPurchaseJson, toPurchasePageJson } from "./json.ts";
import { PurchaseQuery } from "./schemas.ts";
import { createPurchase, NewPurchaseForm, purchasePage } from "./service.ts";

export const purchaseRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api", tags: ["Purchases"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/purchases",
      async ({ query, actor, request }) => toPurchasePageJson(await purchasePage(ctx, actor, query), request),
      {
        auth: true,
        query: PurchaseQuery,
        ...answers(
          "List purchases, newest first (all with purchases.view; else your own and your products')",
          { 200: PurchasePageJson },
          422,
        ),
      },
    )
    .post(
      "/admin/purchases",
      async ({ body, status }) => status(201, { data: toPurchaseJson(await createPurchase(ctx, body)) }),
      {
        ...adminApi("Record a purchase (creates its order)", { 201: dataOf(PurchaseJson) }),
        ...input(NewPurchaseForm),
      },
    );
