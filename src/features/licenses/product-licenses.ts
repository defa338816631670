import { and, desc, eq, ilike, inArray, like, or, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { emailMatches } from "../../db/email-key.ts";
import {
  type License,
  licenseIps,
  licenses,
  machines,
  type Product,
  products,
  purchases,
  users,
} from "../../db/schema/index.ts";
import { FieldErrors, Forbidden, Invalid, NotFound } from "../../errors.ts";
import { type PageRequest, pageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { bodyId, invalidIdMessage, toId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { holdsSeatSql } from "../machines/seats.ts";
import { findVisibleProduct, ownsProduct } from "../products/service.ts";
import { normaliseLicenseKey } from "./keys.ts";
import {
  addressInPath,
  CreateProductLicenseBody,
  type CreateProductLicenseInput,
  UpdateProductLicenseBody,
  type UpdateProductLicenseInput,
} from "./schemas.ts";
import {
  type CheckedFields,
  changeLicense,
  checkedExpires,
  checkedMaxIps,
  checkedSettings,
  forgetLicenseIps,
  insertLicense,
  type LicenseScope,
  listIps,
  revokeLicense,
  type SettingNames,
} from "./service.ts";

// A product's licenses (/api/products/{product}/licenses), for a session or a bearer token instead of
// an API key. The rest of the work (revoking, addresses) is the license service's own, called with
// the product as its scope.

/**
 * Who may manage a product's licenses: its owners (`user_id` or `vendor_id`) with a session or an
 * unrestricted token, `products.manage` and admins.
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

/** The scope of the license service for a product `actor` may manage: another product's license is a 404. */
export async function managedScope(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
): Promise<LicenseScope> {
  return { productId: (await managedProduct(ctx, actor, productId)).id };
}

type Owner = { id: number; name: string; email: string };
export interface ProductLicenseRow {
  license: License;
  owner: Owner;
  ipCount: number;
  machineCount: number;
}

const ipCount = sql<number>`(SELECT count(*) FROM ${licenseIps} WHERE ${licenseIps.licenseId} = ${licenses.id})::int`;
/** Seats in use: the license's alive machines now, and those whose license file is still valid. */
const machineCount = sql<number>`(SELECT count(*) FROM ${machines} WHERE ${machines.licenseId} = ${licenses.id} AND ${holdsSeatSql(licenses.heartbeatSeconds)})::int`;

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

/** Licenses as the product's page lists them: with the owner and the addresses and seats in use. */
const productLicenseRows = (ctx: Pick<AppContext, "db">) =>
  ctx.db
    .select({
      license: licenses,
      owner: { id: users.id, name: users.name, email: users.email },
      ipCount,
      machineCount,
    })
    .from(licenses)
    .innerJoin(users, eq(users.id, licenses.userId));

/** A page of the product's licenses, newest first (`perPage + 1` rows, for `simplePage`). */
export async function listProductLicenses(
  ctx: Pick<AppContext, "db">,
  productId: number,
  search: string | undefined,
  page: PageRequest,
): Promise<ProductLicenseRow[]> {
  return productLicenseRows(ctx)
    .where(and(eq(licenses.productId, productId), matching(search)))
    .orderBy(desc(licenses.createdAt), desc(licenses.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}

/**
 * A page of the licenses of a product `actor` may manage, with the page asked for. Who may comes
 * before the page: a bad page of someone else's product is still their 403/404.
 */
export async function productLicensePage(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  query: { page?: string; per_page?: string; search?: string },
): Promise<{ rows: ProductLicenseRow[]; page: PageRequest }> {
  const product = await managedProduct(ctx, actor, productId);
  const page = pageRequest(query);
  return { rows: await listProductLicenses(ctx, product.id, query.search, page), page };
}

/** One license of a product, as its path names them: /api/products/{product}/licenses/{license}. */
export interface ProductLicensePath {
  product: number;
  license: string;
}

/** Revokes a license of a product `actor` may manage (it stays listed, as revoked). */
export async function revokeProductLicense(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  at: ProductLicensePath,
) {
  await revokeLicense(ctx, await managedScope(ctx, actor, at.product), at.license);
}

/** The addresses a license of a product `actor` may manage is registered from, first seen first. */
export async function productLicenseIps(ctx: Pick<AppContext, "db">, actor: Actor, at: ProductLicensePath) {
  return listIps(ctx, await managedScope(ctx, actor, at.product), at.license);
}

/**
 * Forgets the addresses of a license of a product `actor` may manage: all of them, or the one its
 * path names (`ip`). The address is read once the caller may: someone else's product is a 404
 * before a bad address is a 422.
 */
export async function forgetProductLicenseIps(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  at: ProductLicensePath & { ip?: string },
) {
  const scope = await managedScope(ctx, actor, at.product);
  await forgetLicenseIps(ctx, scope, at.license, at.ip === undefined ? null : addressInPath(at.ip));
}

/** Said alike for an address nobody has and for someone who is not the product's owners' customer. */
export const NOT_A_CUSTOMER = "No customer of this product's owner has this e-mail address.";

/** Products whose owner (`user_id` or `vendor_id`) is one of `product`'s owners. */
const ownersProducts = (product: Product) => {
  const owners = [product.userId, product.vendorId].filter((id): id is number => id !== null);
  return sql`SELECT ${products.id} FROM ${products} WHERE ${or(inArray(products.userId, owners), inArray(products.vendorId, owners))}`;
};

/**
 * The user a license may be made out to by e-mail. With `users.view` (admins), anyone; otherwise a
 * customer of the product's owners: someone who bought, or holds a license of, one of their
 * products. Any other address, known or not, gets the same 422, so the form cannot be used to find
 * out who has an account or what they are called.
 */
async function licensableOwner(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  product: Product,
  email: string,
): Promise<Owner | undefined> {
  const related = or(
    sql`EXISTS (SELECT 1 FROM ${purchases} WHERE ${purchases.userId} = ${users.id} AND ${purchases.productId} IN (${ownersProducts(product)}))`,
    sql`EXISTS (SELECT 1 FROM ${licenses} WHERE ${licenses.userId} = ${users.id} AND ${licenses.productId} IN (${ownersProducts(product)}))`,
  );
  const [owner] = await ctx.db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(
      and(emailMatches(users.email, email), allows(actor.permissions, "users.view") ? undefined : related),
    );
  return owner;
}

/** The expiry: absent, null (never) or a date-time still to come; recorded on `errors` otherwise. */
function checkedFutureExpires(raw: string | null | undefined, errors: FieldErrors) {
  const expires = checkedExpires(raw, errors);
  if (expires && expires.getTime() <= Date.now())
    errors.add("expires", "The expires field must be a date after now.");
  return expires;
}

/**
 * A new license of a product: its fields and an expiry still to come. Who may be named as its owner
 * depends on the product and the caller, which a form does not know: createProductLicense checks that.
 */
export const NewProductLicenseForm = form(CreateProductLicenseBody, async (_ctx, fields) => {
  const errors = new FieldErrors();
  checkedFutureExpires(fields.expires, errors);
  if (fields.max_ips !== undefined) checkedMaxIps(fields.max_ips, errors, "max_ips");
  errors.throwIfAny();
});

/** A license of a product `actor` may manage, for the customer with `owner_email`, created by `actor`. */
export async function createProductLicense(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Actor,
  productId: number,
  input: CreateProductLicenseInput,
): Promise<ProductLicenseRow> {
  const product = await managedProduct(ctx, actor, productId);
  // As publishing: a deleted product's licenses stay manageable, but it gets no new ones.
  if (product.deletedAt !== null) throw new NotFound("Product");
  const errors = new FieldErrors();
  const owner = await licensableOwner(ctx, actor, product, input.owner_email.trim());
  if (!owner) errors.add("owner_email", NOT_A_CUSTOMER);
  const expires = checkedFutureExpires(input.expires, errors);
  errors.throwIfAny();
  if (!owner) throw new Invalid(errors.messages); // recorded above
  const license = await insertLicense(ctx, {
    userId: owner.id,
    creatorId: actor.user.id,
    productId: product.id,
    expires,
    maxIps: input.max_ips,
    maxMachines: input.max_machines,
    floating: input.floating,
    heartbeatSeconds: input.heartbeat_seconds,
    machineFileTtlMax: input.machine_file_ttl_max,
    policyId: bodyId(input.policy, "policy"),
  });
  return { license, owner, ipCount: 0, machineCount: 0 };
}

/** The x-api-key PATCH's settings as a product's page names them, for its 422s. */
const PRODUCT_PAGE_NAMES: SettingNames = {
  expires: "expires",
  maxIps: "max_ips",
  maxMachines: "max_machines",
  floating: "floating",
  heartbeatSeconds: "heartbeat_seconds",
  machineFileTtlMax: "machine_file_ttl_max",
};

/** The page's snake_case fields → the license service's settings, then the x-api-key PATCH's rules. */
function checkedChange(input: Partial<UpdateProductLicenseInput>, errors: FieldErrors) {
  return checkedSettings(
    {
      expires: input.expires,
      maxIps: input.max_ips,
      maxMachines: input.max_machines,
      floating: input.floating,
      heartbeatSeconds: input.heartbeat_seconds,
      machineFileTtlMax: input.machine_file_ttl_max,
    },
    errors,
    PRODUCT_PAGE_NAMES,
  );
}

/** A change to one of a product's licenses: validated exactly as the x-api-key PATCH validates. */
export const ProductLicenseChangeForm = form(UpdateProductLicenseBody, async (_ctx, fields) => {
  const errors = new FieldErrors();
  checkedChange(fields, errors);
  // Whether it is one of the license's product's is known once the license is read (changeLicense).
  if (fields.policy !== undefined && fields.policy !== null && toId(fields.policy) === null) {
    errors.add("policy", invalidIdMessage("policy"));
  }
  errors.throwIfAny();
});

/**
 * Changes the settings or the policy of a license of a product `actor` may manage, as the x-api-key
 * PATCH does (lowering `max_ips` forgets the least recently seen addresses; lowering `max_machines`
 * deactivates no machine; another product's policy is a 422 on `policy`). Another product's license is
 * a 404; a refusal writes nothing.
 */
export async function updateProductLicense(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  at: ProductLicensePath,
  input: UpdateProductLicenseInput,
): Promise<ProductLicenseRow> {
  const scope = await managedScope(ctx, actor, at.product);
  const errors = new FieldErrors();
  const fields: CheckedFields = checkedChange(input, errors);
  errors.throwIfAny();
  if (input.policy !== undefined) fields.policyId = bodyId(input.policy, "policy");
  const license = await changeLicense(ctx, scope, at.license, fields, PRODUCT_PAGE_NAMES);
  const [row] = await productLicenseRows(ctx).where(eq(licenses.id, license.id));
  if (!row) throw new NotFound("License");
  return row;
}
