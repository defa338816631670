import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { simplePage, simplePageOf } from "../../http/pagination.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { IdParam, UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import {
  ProductLicenseIpsJson,
  ProductLicenseJson,
  toDashboardIpJson,
  toProductLicenseJson,
} from "./json.ts";
import {
  createProductLicense,
  listProductLicenses,
  managedProduct,
  managedScope,
  NewProductLicenseForm,
  ProductLicenseChangeForm,
  updateProductLicense,
} from "./product-licenses.ts";
import { addressInPath, ProductLicenseListQuery } from "./schemas.ts";
import { forgetLicenseIps, listIps, revokeLicense } from "./service.ts";

const WHO =
  "For the product's owners (`user_id` or `vendor_id`) with a session or a token with every ability " +
  "(`*`), `products.manage` and admins; a product the caller may not see is a 404, one they may see " +
  "but not manage a 403 (an owner's narrowed token, say `versions.publish` alone, too).";
const about = (summary: string) => ({ summary, description: WHO, tags: ["Licenses"] });
const ProductParams = t.Object({ product: IdParam("Product") });
const LicenseParams = t.Object({ product: IdParam("Product"), license: UuidParam("License") });
const AddressParams = t.Object({ ...LicenseParams.properties, ip: t.String() });

/**
 * A product's licenses at /api/products/{product}/licenses, for the dashboard (a session or a bearer
 * token, not an API key): the same license service as /api/v1/licenses, scoped to the product.
 */
export const productLicenseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/api/products/:product/licenses",
      async ({ params, query, actor, request }) => {
        // Who may comes before the page: a bad page of someone else's product is still their 403/404.
        const product = await managedProduct(ctx, actor, params.product);
        const page = pageRequest(query);
        const rows = await listProductLicenses(ctx, product.id, query.search, page);
        return simplePage(rows.map(toProductLicenseJson), page, request);
      },
      {
        auth: true,
        params: ProductParams,
        query: ProductLicenseListQuery,
        response: { 200: simplePageOf(ProductLicenseJson), ...refusals(404, 422) },
        detail: about("A product's licenses, newest first, 15 a page; `search` by key or owner"),
      },
    )
    .post(
      "/api/products/:product/licenses",
      async ({ params, body, actor, status }) => {
        const row = await createProductLicense(ctx, actor, params.product, body);
        return status(201, { data: toProductLicenseJson(row) });
      },
      {
        auth: true,
        params: ProductParams,
        ...input(NewProductLicenseForm),
        response: { 201: dataOf(ProductLicenseJson), ...refusals(404) },
        detail: about("License the product to a user by e-mail; the caller is its creator"),
      },
    )
    .patch(
      "/api/products/:product/licenses/:license",
      async ({ params, body, actor }) => ({
        data: toProductLicenseJson(
          await updateProductLicense(ctx, actor, params.product, params.license, body),
        ),
      }),
      {
        auth: true,
        params: LicenseParams,
        ...input(ProductLicenseChangeForm),
        response: { 200: dataOf(ProductLicenseJson), ...refusals(404) },
        detail: about(
          "Change any of a license's expires, max_ips, max_machines, floating and heartbeat_seconds " +
            "(the license API's PATCH rules)",
        ),
      },
    )
    .delete(
      "/api/products/:product/licenses/:license",
      async ({ params, actor, set }) => {
        await revokeLicense(ctx, await managedScope(ctx, actor, params.product), params.license);
        set.status = 204;
      },
      {
        auth: true,
        params: LicenseParams,
        response: refusals(404),
        detail: about("Revoke a license (it stays listed, as revoked; validation answers REVOKED)"),
      },
    )
    .get(
      "/api/products/:product/licenses/:license/ips",
      async ({ params, actor }) => {
        const ips = await listIps(ctx, await managedScope(ctx, actor, params.product), params.license);
        return { data: ips.map(toDashboardIpJson) };
      },
      {
        auth: true,
        params: LicenseParams,
        response: { 200: ProductLicenseIpsJson, ...refusals(404) },
        detail: about("The addresses a license is registered from, first seen first"),
      },
    )
    .delete(
      "/api/products/:product/licenses/:license/ips",
      async ({ params, actor, set }) => {
        await forgetLicenseIps(ctx, await managedScope(ctx, actor, params.product), params.license, null);
        set.status = 204;
      },
      {
        auth: true,
        params: LicenseParams,
        response: refusals(404),
        detail: about("Forget all of a license's addresses (no daily limit here)"),
      },
    )
    .delete(
      "/api/products/:product/licenses/:license/ips/:ip",
      async ({ params, actor, set }) => {
        const scope = await managedScope(ctx, actor, params.product);
        await forgetLicenseIps(ctx, scope, params.license, addressInPath(params.ip));
        set.status = 204;
      },
      {
        auth: true,
        params: AddressParams,
        response: refusals(404, 422),
        detail: about("Forget one address of a license"),
      },
    );
