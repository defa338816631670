import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { validateAll } from "../../errors.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { productAccess } from "./access.ts";
import { toProductJson } from "./json.ts";
import {
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
  NewProductForm,
  productFilters,
  readProduct,
  updateProduct,
} from "./service.ts";

const ProductParams = t.Object({ product: IdParam("Product") });

export const productRoutes = (ctx: AppContext) => {
  const json = ({ product, purchases }: Awaited<ReturnType<typeof readProduct>>) =>
    toProductJson(product, purchases, ctx.config.appUrl);
  return (
    new Elysia()
      .use(bearerAuth(ctx))
      .use(forms(ctx))
      .get(
        "/api/products",
        async ({ query, actor, request }) => {
          const [page, filters] = await validateAll(
            () => pageRequest(query),
            () => productFilters(query),
          );
          return simplePage((await listProducts(ctx, actor, filters, page)).map(json), page, request);
        },
        {
          auth: true,
          query: ProductListQuery,
          response: { 200: ProductPageJson, ...refusals(422) },
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
        async ({ params, actor }) => ({ data: json(await readProduct(ctx, actor, params.product)) }),
        {
          auth: true,
          params: ProductParams,
          response: { 200: dataOf(ProductJson), ...refusals(404) },
          detail: {
            summary: "Read a product (hidden, disabled or deleted ones only for owners and products.manage)",
            tags: ["Products"],
          },
        },
      )
      .get(
        "/api/products/:product/access",
        async ({ params, actor }) => ({ data: await productAccess(ctx, actor, params.product) }),
        {
          auth: true,
          params: ProductParams,
          response: { 200: dataOf(ProductAccessJson), ...refusals(404) },
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
        async ({ body, status }) => status(201, { data: json(await createProduct(ctx, body)) }),
        {
          auth: "*",
          ...input(NewProductForm),
          response: { 201: dataOf(ProductJson) },
          detail: { summary: "Create a product", tags: ["Admin"] },
        },
      )
      // No form: the rules need the product's id (its own slug is no clash, it cannot be its own
      // add-on), so updateProduct checks them once the shape has passed.
      .patch(
        "/api/admin/products/:product",
        async ({ params, body }) => ({ data: json(await updateProduct(ctx, params.product, body)) }),
        {
          auth: "*",
          params: ProductParams,
          body: UpdateProductBody,
          response: { 200: dataOf(ProductJson), ...refusals(404, 422) },
          detail: { summary: "Change some of a product's fields", tags: ["Admin"] },
        },
      )
      .delete(
        "/api/admin/products/:product",
        async ({ params, set }) => {
          await deleteProduct(ctx, params.product);
          set.status = 204;
        },
        {
          auth: "*",
          params: ProductParams,
          response: refusals(404),
          detail: { summary: "Soft-delete a product", tags: ["Admin"] },
        },
      )
  );
};
