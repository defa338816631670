import { and, asc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  type ProductOption,
  type PurchaseBenefit,
  productOptions,
  purchaseBenefits,
} from "../../db/schema/index.ts";
import { Invalid } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { invalidId, requiredBodyId } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { findLiveProduct, findVisibleProduct } from "../products/service.ts";
import { type CreateBenefitInput, CreateOptionBody, type CreateOptionInput, centsError } from "./schemas.ts";

/** Laravel's `decimal:0,2` on the price: a check the schema cannot express. */
async function checkPrice(input: Partial<CreateOptionInput>) {
  const errors = centsError("price", input.price);
  if (Object.keys(errors).length > 0) throw new Invalid(errors);
}

/** A new option: a name, and a price in whole cents. */
export const NewOptionForm = form(CreateOptionBody, (_, fields) => checkPrice(fields));

export async function createOption(ctx: Pick<AppContext, "db">, productId: number, input: CreateOptionInput) {
  await checkPrice(input);
  await findLiveProduct(ctx, productId);
  const [option] = await ctx.db
    .insert(productOptions)
    .values({ productId, name: input.name, price: input.price.toFixed(2) })
    .returning();
  if (!option) throw new Error("option insert returned nothing");
  return option;
}

/** An option of `productId`, or null (also for an option of another product). */
export async function findOption(ctx: Pick<AppContext, "db">, productId: number, optionId: number) {
  const [option] = await ctx.db
    .select()
    .from(productOptions)
    .where(and(eq(productOptions.id, optionId), eq(productOptions.productId, productId)));
  return option ?? null;
}

/** A benefit belongs to one of the product's options; an option of another product is a 422. */
export async function createBenefit(
  ctx: Pick<AppContext, "db">,
  productId: number,
  input: CreateBenefitInput,
) {
  await findLiveProduct(ctx, productId);
  const optionId = requiredBodyId(input.option_id, "option_id");
  if (!(await findOption(ctx, productId, optionId))) throw invalidId("option_id");
  const [benefit] = await ctx.db
    .insert(purchaseBenefits)
    .values({ productId, optionId, name: input.name })
    .returning();
  if (!benefit) throw new Error("benefit insert returned nothing");
  return benefit;
}

/**
 * The product's options, oldest first, each with its benefits: for whoever may see the product (its
 * visibility rules, so an unlisted product of someone else's is a 404).
 */
export async function listOptions(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
): Promise<{ option: ProductOption; benefits: PurchaseBenefit[] }[]> {
  await findVisibleProduct(ctx, actor, productId);
  const [options, benefits] = await Promise.all([
    ctx.db
      .select()
      .from(productOptions)
      .where(eq(productOptions.productId, productId))
      .orderBy(asc(productOptions.id)),
    ctx.db
      .select()
      .from(purchaseBenefits)
      .where(eq(purchaseBenefits.productId, productId))
      .orderBy(asc(purchaseBenefits.id)),
  ]);
  return options.map((option) => ({
    option,
    benefits: benefits.filter((benefit) => benefit.optionId === option.id),
  }));
}
