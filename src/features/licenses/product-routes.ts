import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { Invalid } from "../../errors.ts";
import { bearerAuth } from "../../http/auth.ts";
import { normaliseIp } from "../../http/client-ip.ts";
import { simplePage, simplePageOf } from "../../http/pagination.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { pathId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import {
  createProductLicense,
  listProductLicenses,
  managedProduct,
  toProductLicenseJson,
} from "./product-licenses.ts";
import {
  CreateProductLicenseBody,
  ProductLicenseIpsJson,
  ProductLicenseJson,
  ProductLicenseListQuery,
} from "./schemas.ts";
import { forgetLicenseIps, listIps, revokeLicense } from "./service.ts";

const tags = ["Licenses"];

/** A path segment decoded; a malformed escape (`%E0`) is left as is, so it fails as an address would. */
const decodedSegment = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};
const refusals = { 401: MessageJson, 403: MessageJson, 404: MessageJson };
const WHO =
  "For the product's owners (`user_id` or `vendor_id`) with a session or a token with every ability " +
  "(`*`), `products.manage` and admins; a product the caller may not see is a 404, one they may see " +
  "but not manage a 403 (an owner's narrowed token, say `versions.publish` alone, too).";

/**
 * A product's licenses for the dashboard (a session or a bearer token, not an API key): the same
 * license service as /api/v1/licenses, scoped to the product named in the path, in snake_case.
 */
export const productLicenseRoutes = (ctx: AppContext) => {
  /** The product's scope once the caller may manage it; a license of another product is then a 404. */
  const scopeOf = async (actor: Actor, raw: string) => {
    const product = await managedProduct(ctx, actor, pathId(raw, "Product"));
    return { product, scope: { productId: product.id } };
  };

  return new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/products/:product/licenses",
      async ({ params, query, actor, request }) => {
        const { product } = await scopeOf(actor, params.product);
        const page = pageRequest(query);
        const rows = await listProductLicenses(ctx, product.id, query.search, page);
        return simplePage(rows.map(toProductLicenseJson), page, request);
      },
      {
        auth: true,
        query: ProductLicenseListQuery,
        response: { 200: simplePageOf(ProductLicenseJson), ...refusals, 422: ValidationJson },
        detail: {
          summary: "A product's licenses, newest first, 15 a page; `search` by key or owner",
          description: WHO,
          tags,
        },
      },
    )
    .post(
      "/api/products/:product/licenses",
      async ({ params, body, actor, set }) => {
        const { product } = await scopeOf(actor, params.product);
        const row = await createProductLicense(ctx, actor, product, body);
        set.status = 201;
        return { data: toProductLicenseJson(row) };
      },
      {
        auth: true,
        body: CreateProductLicenseBody,
        response: { 201: dataOf(ProductLicenseJson), ...refusals, 422: ValidationJson },
        detail: {
          summary: "License the product to a user by e-mail; the caller is its creator",
          description: WHO,
          tags,
        },
      },
    )
    .delete(
      "/api/products/:product/licenses/:license",
      async ({ params, actor, set }) => {
        const { scope } = await scopeOf(actor, params.product);
        await revokeLicense(ctx, scope, params.license);
        set.status = 204;
      },
      {
        auth: true,
        response: refusals,
        detail: {
          summary: "Revoke a license (it stays listed, as revoked; validation answers REVOKED)",
          description: WHO,
          tags,
        },
      },
    )
    .get(
      "/api/products/:product/licenses/:license/ips",
      async ({ params, actor }) => {
        const { scope } = await scopeOf(actor, params.product);
        const ips = await listIps(ctx, scope, params.license);
        return {
          data: ips.map((row) => ({
            ip: row.ip,
            first_seen_at: row.firstSeenAt,
            last_seen_at: row.lastSeenAt,
          })),
        };
      },
      {
        auth: true,
        response: { 200: ProductLicenseIpsJson, ...refusals },
        detail: {
          summary: "The addresses a license is registered from, first seen first",
          description: WHO,
          tags,
        },
      },
    )
    .delete(
      "/api/products/:product/licenses/:license/ips",
      async ({ params, actor, set }) => {
        const { scope } = await scopeOf(actor, params.product);
        await forgetLicenseIps(ctx, scope, params.license, null);
        set.status = 204;
      },
      {
        auth: true,
        response: refusals,
        detail: {
          summary: "Forget all of a license's addresses (no daily limit here)",
          description: WHO,
          tags,
        },
      },
    )
    .delete(
      "/api/products/:product/licenses/:license/ips/:ip",
      async ({ params, actor, set }) => {
        const { scope } = await scopeOf(actor, params.product);
        const ip = normaliseIp(decodedSegment(params.ip));
        if (ip === null) throw new Invalid({ ip: ["The ip field must be a valid IP address."] });
        await forgetLicenseIps(ctx, scope, params.license, ip);
        set.status = 204;
      },
      {
        auth: true,
        response: { ...refusals, 422: ValidationJson },
        detail: { summary: "Forget one address of a license", description: WHO, tags },
      },
    );
};
