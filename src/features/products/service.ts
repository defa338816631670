import { and, asc, count, eq, ilike, isNull, like, or, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { type NewProduct, type Product, products, purchases, users } from "../../db/schema/index.ts";
import { FieldErrors, Invalid, NotFound, validateAll } from "../../errors.ts";
import { nulInvalid } from "../../http/json-body.ts";
import { type PageRequest, pageRequest } from "../../page-request.ts";
import { form } from "../../validation/form.ts";
import { invalidIdMessage, requiredBodyId, toId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { feedChanged } from "../updates/feed-cache.ts";
import {
  CreateProductBody,
  type CreateProductInput,
  type ProductListQuery,
  type UpdateProductInput,
} from "./schemas.ts";

/** The product's owner is its seller (`user_id`) or its vendor (`vendor_id`); both have the same rights. */
export const ownsProduct = (userId: number, product: Pick<Product, "userId" | "vendorId">) =>
  product.userId === userId || product.vendorId === userId;

/** Hidden, disabled and soft-deleted products exist only for their owners and `products.manage`. */
export const isListed = (product: Pick<Product, "hidden" | "disabled" | "deletedAt">) =>
  !product.hidden && !product.disabled && product.deletedAt === null;

/** A product as `actor` may see it: 404 for unknown ids and for unlisted products of others. */
export async function findVisibleProduct(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  id: number,
): Promise<Product> {
  const [product] = await ctx.db.select().from(products).where(eq(products.id, id));
  const visible =
    product &&
    (isListed(product) ||
      ownsProduct(actor.user.id, product) ||
      allows(actor.permissions, "products.manage"));
  if (!visible) throw new NotFound("Product");
  return product;
}

/** A listed product by its slug, for its public page; anything else is as unknown as a missing one. */
export async function findListedProductBySlug(ctx: Pick<AppContext, "db">, slug: string): Promise<Product> {
  const [product] = await ctx.db.select().from(products).where(eq(products.slug, slug));
  if (!product || !isListed(product)) throw new NotFound("Product");
  return product;
}

/** The product as `GET /api/products/{id}` shows it: visible to `actor`, with its purchase count. */
export async function readProduct(ctx: Pick<AppContext, "db">, actor: Actor, id: number) {
  const product = await findVisibleProduct(ctx, actor, id);
  return { product, purchases: await countPurchases(ctx, id) };
}

/** A product the admin API may change: soft-deleted ones are gone, as Laravel's route binding treats them. */
export async function findLiveProduct(ctx: Pick<AppContext, "db">, id: number): Promise<Product> {
  const [product] = await ctx.db
    .select()
    .from(products)
    .where(and(eq(products.id, id), isNull(products.deletedAt)));
  if (!product) throw new NotFound("Product");
  return product;
}

/** What `GET /api/products` filters by, checked. */
export interface ProductFilters {
  search: string | null;
  withDeleted: boolean;
  /** `?counts=1`: each product with its ProductCounts (product-counts.ts). */
  withCounts: boolean;
}

/** `?search=` and `?deleted=` as filters; `deleted` is "0" or "1" (empty counts as absent). */
export function productFilters(query: ProductListQuery): ProductFilters {
  const deleted = query.deleted ?? "";
  const counts = query.counts ?? "";
  const errors: Record<string, string[]> = {};
  if (!["", "0", "1"].includes(deleted)) errors.deleted = ["The deleted field must be 0 or 1."];
  if (!["", "0", "1"].includes(counts)) errors.counts = ["The counts field must be 0 or 1."];
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
  const search = query.search?.trim() ?? "";
  // PostgreSQL text cannot hold a NUL: refused as the JSON bodies' strings are.
  if (search.includes("\0")) throw nulInvalid(["search"]);
  return { search: search === "" ? null : search, withDeleted: deleted === "1", withCounts: counts === "1" };
}

/** `GET /api/products`'s page and filters, checked together so that one 422 names every bad field. */
export const productListRequest = (query: ProductListQuery) =>
  validateAll(
    () => pageRequest(query),
    () => productFilters(query),
  );

/** `%`, `_` and the escape character itself match only themselves in a LIKE pattern. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The products `actor` manages, by name: every product with `products.manage` (hidden and disabled
 * too), else those they own (`user_id` or `vendor_id`). Soft-deleted ones only when asked for.
 */
export async function listProducts(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  filters: ProductFilters,
  page: PageRequest,
) {
  const me = actor.user.id;
  const conditions = [
    allows(actor.permissions, "products.manage")
      ? undefined
      : or(eq(products.userId, me), eq(products.vendorId, me)),
    filters.withDeleted ? undefined : isNull(products.deletedAt),
    filters.search === null ? undefined : ilike(products.name, `%${likeLiteral(filters.search)}%`),
  ];
  return ctx.db
    .select({
      product: products,
      // Counted for this page's rows only. Spelt out: inside a selected sql`` drizzle leaves columns
      // unqualified, which would compare purchases.product_id with purchases.id.
      purchases: sql<number>`(select count(*) from purchases p where p.product_id = products.id)`.mapWith(
        Number,
      ),
    })
    .from(products)
    .where(and(...conditions))
    .orderBy(asc(products.name), asc(products.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
}

async function countPurchases(ctx: Pick<AppContext, "db">, productId: number): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(purchases).where(eq(purchases.productId, productId));
  return row?.n ?? 0;
}

export async function createProduct(ctx: Pick<AppContext, "db">, input: CreateProductInput) {
  const values = await checkedValues(ctx, input, null);
  const slug = values.slug ?? (await freeSlug(ctx, slugify(input.name)));
  const [product] = await ctx.db
    .insert(products)
    .values({ ...values, name: input.name, userId: requiredBodyId(input.user_id, "user_id"), slug })
    .onConflictDoNothing({ target: products.slug })
    .returning();
  if (!product) throw slugTaken();
  return { product, purchases: 0 };
}

export async function updateProduct(ctx: Pick<AppContext, "db">, id: number, input: UpdateProductInput) {
  await findLiveProduct(ctx, id);
  const values = await checkedValues(ctx, input, id);
  if (Object.keys(values).length === 0) return findProductWithCount(ctx, id);
  try {
    const [product] = await ctx.db.update(products).set(values).where(eq(products.id, id)).returning();
    if (!product) throw new NotFound("Product");
    return { product, purchases: await countPurchases(ctx, id) };
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken();
    throw error;
  }
}

/** Soft delete: purchases, licenses and versions keep pointing at the row. */
export async function deleteProduct(ctx: Pick<AppContext, "db">, id: number): Promise<void> {
  const deleted = await ctx.db
    .update(products)
    .set({ deletedAt: new Date() })
    .where(and(eq(products.id, id), isNull(products.deletedAt)))
    .returning({ id: products.id });
  if (deleted.length === 0) throw new NotFound("Product");
  await feedChanged(ctx, id);
}

async function findProductWithCount(ctx: Pick<AppContext, "db">, id: number) {
  return { product: await findLiveProduct(ctx, id), purchases: await countPurchases(ctx, id) };
}

/**
 * Request fields → column values, checking every reference (`user_id`, `vendor_id`, `addon_to`) and the
 * slug, and reporting all problems in one 422 as Laravel's validator does.
 */
async function checkedValues(
  ctx: Pick<AppContext, "db">,
  input: UpdateProductInput,
  productId: number | null,
): Promise<Partial<NewProduct>> {
  const errors = new FieldErrors();
  const refer = async (field: "user_id" | "vendor_id", raw: string | number | null | undefined) => {
    const id = idOrInvalid(raw, field, errors);
    if (id !== null && id !== undefined && !(await userExists(ctx, id))) {
      errors.add(field, invalidIdMessage(field));
    }
    return id;
  };
  const userId = await refer("user_id", input.user_id);
  const vendorId = await refer("vendor_id", input.vendor_id);
  const addonTo = idOrInvalid(input.addon_to, "addon_to", errors);
  if (addonTo !== null && addonTo !== undefined) {
    const target = await ctx.db
      .select({ id: products.id })
      .from(products)
      .where(and(eq(products.id, addonTo), isNull(products.deletedAt)));
    if (target.length === 0 || addonTo === productId) errors.add("addon_to", invalidIdMessage("addon_to"));
  }
  if (input.slug !== undefined && (await slugInUse(ctx, input.slug, productId))) errors.merge(slugTaken());
  errors.throwIfAny();

  const values: Partial<NewProduct> = {
    name: input.name,
    userId: userId ?? undefined,
    vendorId,
    addonTo,
    slug: input.slug,
    description: input.description,
    longDescription: input.long_description,
    categoryId: input.category_id,
    free: input.free,
    hidden: input.hidden,
    disabled: input.disabled,
    featured: input.featured,
    placeholderInjection: input.placeholder_injection,
    discount: input.discount === undefined ? undefined : input.discount.toFixed(2),
    tags: input.tags,
    coverImage: input.cover_image,
    galleryImages: input.gallery_images,
    youtubeVideoUrl: input.youtube_video_url,
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** A new product: its fields, owners and an add-on target that exist, and a slug nobody has. */
export const NewProductForm = form(CreateProductBody, (ctx, fields) => checkedValues(ctx, fields, null));

/** undefined when absent, null when explicitly null, else the id (or an error recorded on `field`). */
function idOrInvalid(
  raw: string | number | null | undefined,
  field: string,
  errors: FieldErrors,
): number | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const id = toId(raw);
  if (id === null) errors.add(field, invalidIdMessage(field));
  return id ?? undefined;
}

async function userExists(ctx: Pick<AppContext, "db">, id: number): Promise<boolean> {
  const rows = await ctx.db.select({ id: users.id }).from(users).where(eq(users.id, id));
  return rows.length > 0;
}

async function slugInUse(ctx: Pick<AppContext, "db">, slug: string, exceptId: number | null) {
  const rows = await ctx.db.select({ id: products.id }).from(products).where(eq(products.slug, slug));
  return rows.some((row) => row.id !== exceptId);
}

/** "Ultra Perms 2!" → "ultra-perms-2" (ASCII only, so it is safe in URLs as is). */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 200)
    .replace(/-+$/, "");
  return slug || "product";
}

/** `base`, or `base-2`, `base-3`, … whichever is free first. */
async function freeSlug(ctx: Pick<AppContext, "db">, base: string): Promise<string> {
  const taken = new Set(
    (
      await ctx.db
        .select({ slug: products.slug })
        .from(products)
        .where(or(eq(products.slug, base), like(products.slug, `${base}-%`)) as SQL)
    ).map((row) => row.slug),
  );
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

const slugTaken = () => new Invalid({ slug: ["The slug has already been taken."] });
