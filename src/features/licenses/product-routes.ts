import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, noContent, refusals } from "../../http/schemas.ts";
import { IdParam, UuidParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import {
  ProductLicenseDataJson,
  ProductLicenseIpsJson,
  ProductLicensePageJson,
  ProductLicenseSettingsJson,
  toProductLicenseDataJson,
  toProductLicenseIpsJson,
  toProductLicensePage,
  toProductLicenseSettingsJson,
} from "./json.ts";
import {
  createProductLicense,
  forgetProductLicenseIps,
  NewProductLicenseForm,
  ProductLicenseChangeForm,
  productLicenseIps,
  productLicensePage,
  revokeProductLicense,
  updateProductLicense,
} from "./product-licenses.ts";
import {
  ProductLicenseSettingsForm,
  productLicenseSettings,
  updateProductLicenseSettings,
} from "./product-settings.ts";
import { ProductLicenseListQuery } from "./schemas.ts";

const WHO =
  "For the product's owners (`user_id` or `vendor_id`) with a session or a token with every ability " +
  "(`*`), `products.manage` and admins; a product the caller may not see is a 404, one they may see " +
  "but not manage a 403 (an owner's narrowed token, say `versions.publish` alone, too).";
const ProductParams = t.Object({ product: IdParam("Product") });
const LicenseParams = t.Object({ product: IdParam("Product"), license: UuidParam("License") });
const AddressParams = t.Object({ ...LicenseParams.properties, ip: t.String() });

/** An operation on a product's licenses: a session or a bearer token, who may (WHO), and 404 for the rest. */
const productApi = <R extends Parameters<typeof answers>[1]>(summary: string, success: R) => ({
  auth: true as const,
  ...answers({ summary, description: WHO }, success, 404),
});

/**
 * A product's licenses at /api/products/{product}/licenses, for the dashboard (a session or a bearer
 * token, not an API key): the same license service as /api/v1/licenses, scoped to the product.
 */
export const productLicenseRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/products/:product/licenses", tags: ["Licenses"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "",
      async ({ params, query, actor, request }) =>
        toProductLicensePage(await productLicensePage(ctx, actor, params.product, query), request),
      {
        ...productApi("A product's licenses, newest first, 15 a page; `search` by key or owner", {
          200: ProductLicensePageJson,
          ...refusals(422),
        }),
        params: ProductParams,
        query: ProductLicenseListQuery,
      },
    )
    .post(
      "",
      async ({ params, body, actor, status }) =>
        status(201, toProductLicenseDataJson(await createProductLicense(ctx, actor, params.product, body))),
      {
        ...productApi("License the product to a user by e-mail; the caller is its creator", {
          201: ProductLicenseDataJson,
        }),
        params: ProductParams,
        ...input(NewProductLicenseForm),
      },
    )
    .patch(
      "/:license",
      async ({ params, body, actor }) =>
        toProductLicenseDataJson(await updateProductLicense(ctx, actor, params, body)),
      {
        ...productApi(
          "Change any of a license's policy, expires, max_ips, max_machines, floating and heartbeat_seconds " +
            "(the license API's PATCH rules)",
          { 200: ProductLicenseDataJson },
        ),
        params: LicenseParams,
        ...input(ProductLicenseChangeForm),
      },
    )
    .delete("/:license", ({ params, actor }) => noContent(revokeProductLicense(ctx, actor, params)), {
      ...productApi("Revoke a license (it stays listed, as revoked; validation answers REVOKED)", {}),
      params: LicenseParams,
    })
    .get(
      "/:license/ips",
      async ({ params, actor }) => toProductLicenseIpsJson(await productLicenseIps(ctx, actor, params)),
      {
        ...productApi("The addresses a license is registered from, first seen first", {
          200: ProductLicenseIpsJson,
        }),
        params: LicenseParams,
      },
    )
    .delete("/:license/ips", ({ params, actor }) => noContent(forgetProductLicenseIps(ctx, actor, params)), {
      ...productApi("Forget all of a license's addresses (no daily limit here)", {}),
      params: LicenseParams,
    })
    .delete(
      "/:license/ips/:ip",
      ({ params, actor }) => noContent(forgetProductLicenseIps(ctx, actor, params)),
      {
        ...productApi("Forget one address of a license", { ...refusals(422) }),
        params: AddressParams,
      },
    );

/**
 * A product's license settings at /api/products/{product}/license-settings, beside its licenses and
 * for the same callers: the defaults its licenses take when they set none.
 */
export const productLicenseSettingsRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/products/:product/license-settings", tags: ["Licenses"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "",
      async ({ params, actor }) =>
        toProductLicenseSettingsJson(await productLicenseSettings(ctx, actor, params.product)),
      {
        ...productApi("The product's license settings: machine_file_ttl_max, its licenses' default", {
          200: ProductLicenseSettingsJson,
        }),
        params: ProductParams,
      },
    )
    .patch(
      "",
      async ({ params, body, actor }) =>
        toProductLicenseSettingsJson(await updateProductLicenseSettings(ctx, actor, params.product, body)),
      {
        ...productApi(
          "Change the product's license settings: machine_file_ttl_max, the longest a license file of a " +
            "license without its own lasts (null: 7 days with max_machines, else none)",
          { 200: ProductLicenseSettingsJson },
        ),
        params: ProductParams,
        ...input(ProductLicenseSettingsForm),
      },
    );
