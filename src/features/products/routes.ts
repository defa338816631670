import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage } from "../../http/pagination.ts";
import { answers, dataOf, noContent } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { productAccess } from "./access.ts";
import { adminApi } from "./admin-api.ts";
import { ProductAccessJson, ProductJson, ProductPageJson, toProductJson } from "./json.ts";
import { productCounts } from "./product-counts.ts";
import { ProductListQuery, ProductParams, UpdateProductBody } from "./schemas.ts";
import {
  createProduct,
  deleteProduct,
  listProducts,
  NewProductForm,
  productListRequest,
  readProduct,
  updateProduct,
} from "./service.ts";

type CountedProduct = Awaited<ReturnType<typeof readProduct>>;

export const productRoutes = (ctx: AppContext) => {
  const json = (row: CountedProduct) => toProductJson(row.product, row.purchases, ctx.config.appUrl);
  // One product's answer, `{ data }`, once the service has found, made or changed it.
  const data = async (found: Promise<CountedProduct>) => ({ data: json(await found) });
  return new Elysia({ prefix: "/api", tags: ["Products"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/products",
      async ({ query, actor, request }) => {
        const [page, filters] = await productListRequest(query);
        const rows = await listProducts(ctx, actor, filters, page);
        if (!filters.withCounts) return simplePage(rows.map(json), page, request);
        const counts = await productCounts(
          ctx,
          rows.map((row) => row.product.id),
        );
        return simplePage(
          rows.map((row) => ({ ...json(row), counts: counts.get(row.product.id) })),
          page,
          request,
        );
      },
      {
        auth: true,
        query: ProductListQuery,
        ...answers(
          "List products by name: all with products.manage (hidden and disabled too), else your own; " +
            "?search= on the name, ?deleted=1 with soft-deleted ones, ?counts=1 with each one's counts " +
            "(versions, latest version, licenses, validations in 7 days)",
          { 200: ProductPageJson },
          422,
        ),
      },
    )
    .get("/products/:product", ({ params, actor }) => data(readProduct(ctx, actor, params.product)), {
      auth: true,
      params: ProductParams,
      ...answers(
        "Read a product (hidden, disabled or deleted ones only for owners and products.manage)",
        { 200: dataOf(ProductJson) },
        404,
      ),
    })
    .get(
      "/products/:product/access",
      async ({ params, actor }) => ({ data: await productAccess(ctx, actor, params.product) }),
      {
        auth: true,
        params: ProductParams,
        ...answers(
          "What you may do with a product you can see: manage it (its licenses) and publish versions " +
            "to it; the dashboard offers only these",
          { 200: dataOf(ProductAccessJson) },
          404,
        ),
      },
    )
    .post("/admin/products", async ({ body, status }) => status(201, await data(createProduct(ctx, body))), {
      ...adminApi("Create a product", { 201: dataOf(ProductJson) }),
      ...input(NewProductForm),
    })
    .patch("/admin/products/:product", ({ params, body }) => data(updateProduct(ctx, params.product, body)), {
      ...adminApi("Change some of a product's fields", { 200: dataOf(ProductJson) }, 404, 422),
      params: ProductParams,
      // No form: the rules need the product's id (its own slug is no clash, it cannot be its own
      // add-on), so updateProduct checks them once the shape has passed.
      body: UpdateProductBody,
    })
    .delete("/admin/products/:product", ({ params }) => noContent(deleteProduct(ctx, params.product)), {
      ...adminApi("Soft-delete a product", {}, 404),
      params: ProductParams,
    });
};
