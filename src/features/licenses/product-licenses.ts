import { and, desc, eq, ilike, like, or, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type License, licenseIps, licenses, type Product, users } from "../../db/schema/index.ts";
import { FieldErrors, Forbidden, Invalid, NotFound } from "../../errors.ts";
import type { PageRequest } from "../../pagination.ts";
import { checkBodyWith } from "../../validation/body-checks.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { findVisibleProduct, ownsProduct } from "../products/service.ts";
import { normaliseLicenseKey } from "./keys.ts";
import {
  CreateProductLicenseBody,
  type CreateProductLicenseInput,
  type ProductLicenseJson,
} from "./schemas.ts";
import { checkedExpires, insertLicense } from "./service.ts";
import { licenseStatus } from "./status.ts";

/**
 * The dashboard's face of the license service: one product's licenses, for a session or a bearer
 * token instead of an API key. Who may: the product's owners (`user_id` or `vendor_id`) with a session
 * or an unrestricted token, `products.manage` and admins. The rest of the work (revoking, addresses)
 * is the license service's own, called with the product as its scope.
 */
export const mayManageLicenses = (actor: Actor, product: Product) =>
  (actor.unrestricted && ownsProduct(actor.user.id, product)) || allows(actor.permissions, "products.manage");

/**
 * The product whose licenses `actor` wants to manage: 404 for a product they may not see (as the
 * product itself answers), 403 for one they may see but not manage (as publishing decides).
 */
export async function managedProduct(ctx: Pick<AppContext, "db">, actor: Actor, productId: number) {
  const product = await findVisibleProduct(ctx, actor, productId);
  if (!mayManageLicenses(actor, product)) throw new Forbidden();
  return product;
}

type Owner = { id: number; name: string; email: string };
export interface ProductLicenseRow {
  license: License;
  owner: Owner;
  ipCount: number;
}

const ipCount = sql<number>`(SELECT count(*) FROM ${licenseIps} WHERE ${licenseIps.licenseId} = ${licenses.id})::int`;

/** `%`, `_` and `\` typed by the reader are letters, not wildcards. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A key (exact or its beginning, any case: keys are upper case) or part of the owner's e-mail or name. */
function matching(search: string | undefined): SQL | undefined {
  const term = search?.trim();
  if (!term) return undefined;
  // PostgreSQL text cannot hold one, so it is the client's mistake rather than a failed query.
  if (term.includes("\0"))
    throw new Invalid({ search: ["The search field must not contain NUL characters."] });
  return or(
    like(licenses.key, `${escapeLike(normaliseLicenseKey(term))}%`),
    ilike(users.email, `%${escapeLike(term)}%`),
    ilike(users.name, `%${escapeLike(term)}%`),
  );
}

/** A page of the product's licenses, newest first (`perPage + 1` rows, for `simplePage`). */
export async function listProductLicenses(
  ctx: Pick<AppContext, "db">,
  productId: number,
  search: string | undefined,
  page: PageRequest,
): Promise<ProductLicenseRow[]> {
  return ctx.db
    .select({
      license: licenses,
      owner: { id: users.id, name: users.name, email: users.email },
      ipCount,
    })
    .from(licenses)
    .innerJoin(users, eq(users.id, licenses.userId))
    .where(and(eq(licenses.productId, productId), matching(search)))
    .orderBy(desc(licenses.createdAt), desc(licenses.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}

/** The owner named by e-mail (any case) and the expiry, checked together: one 422 for both. */
async function checkedFields(ctx: Pick<AppContext, "db">, input: Partial<CreateProductLicenseInput>) {
  const errors = new FieldErrors();
  let owner: Owner | undefined;
  if (input.owner_email !== undefined) {
    [owner] = await ctx.db
      .select({ id: users.id, name: users.name, email: users.email })
      .from(users)
      .where(sql`lower(${users.email}) = lower(${input.owner_email.trim()})`);
    if (!owner) errors.add("owner_email", "No user has this e-mail address.");
  }
  const expires = checkedExpires(input.expires, errors);
  errors.throwIfAny();
  return { owner, expires };
}

checkBodyWith(CreateProductLicenseBody, (ctx, fields) => checkedFields(ctx, fields));

/** A license of `product` for the user with `owner_email`, created by `actor`. */
export async function createProductLicense(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Actor,
  product: Product,
  input: CreateProductLicenseInput,
): Promise<ProductLicenseRow> {
  // As publishing: a deleted product's licenses stay manageable, but it gets no new ones.
  if (product.deletedAt !== null) throw new NotFound("Product");
  const { owner, expires } = await checkedFields(ctx, input);
  if (!owner) throw new Error("owner_email is required by the schema");
  const license = await insertLicense(ctx, {
    userId: owner.id,
    creatorId: actor.user.id,
    productId: product.id,
    expires,
    maxIps: input.max_ips,
  });
  return { license, owner, ipCount: 0 };
}

export const toProductLicenseJson = ({ license, owner, ipCount }: ProductLicenseRow): ProductLicenseJson => ({
  id: license.id,
  key: license.key,
  owner,
  expires: license.expires?.toISOString() ?? null,
  revoked: license.revokedAt !== null,
  status: licenseStatus(license),
  max_ips: license.maxIps,
  ip_count: ipCount,
  created_at: license.createdAt.toISOString(),
});
