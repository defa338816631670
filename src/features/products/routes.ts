import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { pathId } from "../../validation/ids.ts";
import { productAccess } from "./access.ts";
import { toProductJson } from "./json.ts";
import {
  CreateProductBody,
  ProductAccessJson,
  ProductJson,
  ProductListQuery,
  ProductPageJson,
  UpdateProductBody,
} from "./schemas.ts";
import {
  createProduct,
  deleteProduct,
  listProducts,
  productFilters,
  readProduct,
  updateProduct,
} from "./service.ts";

export const productRoutes = (ctx: AppContext) => {
  const json = ({ product, purchases }: Awaited<ReturnType<typeof createProduct>>) => ({
    data: toProductJson(product, purchases, ctx.config.appUrl),
  });
  return new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/products",
      async ({ query, actor, request }) => {
        const [page, filters] = await validateAll(
          () => pageRequest(query),
          () => productFilters(query),
        );
        const rows = await listProducts(ctx, actor, filters, page);
        return simplePage(
          rows.map(({ product, purchases }) => toProductJson(product, purchases, ctx.config.appUrl)),
          page,
          request,
        );
      },
      {
        auth: true,
        query: ProductListQuery,
        response: { 200: ProductPageJson, 401: MessageJson, 422: ValidationJson },
        detail: {
          summary:
            "List products by name: all with products.manage (hidden and disabled too), else your own; " +
            "?search= on the name, ?deleted=1 with soft-deleted ones",
          tags: ["Products"],
        },
      },
    )
    .get(
      "/api/products/:product",
      async ({ params, actor }) => json(await readProduct(ctx, actor, pathId(params.product, "Product"))),
      {
        auth: true,
        response: { 200: dataOf(ProductJson), 401: MessageJson, 404: MessageJson },
        detail: {
          summary: "Read a product (hidden, disabled or deleted ones only for owners and products.manage)",
          tags: ["Products"],
        },
      },
    )
    .get(
      "/api/products/:product/access",
      async ({ params, actor }) => ({
        data: await productAccess(ctx, actor, pathId(params.product, "Product")),
      }),
      {
        auth: true,
        response: { 200: dataOf(ProductAccessJson), 401: MessageJson, 404: MessageJson },
        detail: {
          summary:
            "What you may do with a product you can see: manage it (its licenses) and publish versions " +
            "to it; the dashboard offers only these",
          tags: ["Products"],
        },
      },
    )
    .post(
      "/api/admin/products",
      async ({ body, set }) => {
        set.status = 201;
        return json(await createProduct(ctx, body));
      },
      {
        auth: "*",
        body: CreateProductBody,
        response: { 201: dataOf(ProductJson), 401: MessageJson, 403: MessageJson, 422: ValidationJson },
        detail: { summary: "Create a product", tags: ["Admin"] },
      },
    )
    .patch(
      "/api/admin/products/:product",
      async ({ params, body }) => json(await updateProduct(ctx, pathId(params.product, "Product"), body)),
      {
        auth: "*",
        body: UpdateProductBody,
        response: {
          200: dataOf(ProductJson),
          401: MessageJson,
          403: MessageJson,
          404: MessageJson,
          422: ValidationJson,
        },
        detail: { summary: "Change some of a product's fields", tags: ["Admin"] },
      },
    )
    .delete(
      "/api/admin/products/:product",
      async ({ params, set }) => {
        await deleteProduct(ctx, pathId(params.product, "Product"));
        set.status = 204;
      },
      {
        auth: "*",
        response: { 401: MessageJson, 403: MessageJson, 404: MessageJson },
        detail: { summary: "Soft-delete a product", tags: ["Admin"] },
      },
    );
};
