import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Product, products } from "../../db/schema/index.ts";
import { FieldErrors } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import type { Actor } from "../auth/actor.ts";
import { managedProduct } from "./product-licenses.ts";
import { ProductLicenseSettingsBody, type ProductLicenseSettingsInput } from "./schemas.ts";
import { fileTtlRangeMessage, withinFileTtlRange } from "./service.ts";

// A product's license settings (/api/products/{product}/license-settings): the defaults its licenses
// take when they say nothing themselves. Managed by whoever manages the product's licenses.

/** A change to a product's license settings: the ceiling null or within a license file's own range. */
export const ProductLicenseSettingsForm = form(ProductLicenseSettingsBody, async (_ctx, fields) => {
  const errors = new FieldErrors();
  const ttlMax = fields.machine_file_ttl_max;
  if (typeof ttlMax === "number" && !withinFileTtlRange(ttlMax)) {
    errors.add("machine_file_ttl_max", fileTtlRangeMessage("machine_file_ttl_max"));
  }
  errors.throwIfAny();
});

/** The license settings of a product `actor` may manage (404 / 403 as its licenses answer). */
export function productLicenseSettings(ctx: Pick<AppContext, "db">, actor: Actor, productId: number) {
  return managedProduct(ctx, actor, productId);
}

/** Changes the license settings of a product `actor` may manage; only the fields sent. */
export async function updateProductLicenseSettings(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  input: ProductLicenseSettingsInput,
): Promise<Product> {
  const product = await managedProduct(ctx, actor, productId);
  if (input.machine_file_ttl_max === undefined) return product;
  const [changed] = await ctx.db
    .update(products)
    .set({ machineFileTtlMax: input.machine_file_ttl_max })
    .where(eq(products.id, product.id))
    .returning();
  return changed ?? product;
}
