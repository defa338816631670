import { t } from "elysia";
import type { ProductOption, PurchaseBenefit } from "../../db/schema/index.ts";
import { Int } from "../../validation/schemas.ts";

export const OptionJson = t.Object({
  id: Int(),
  product_id: Int(),
  name: t.String(),
  price: t.Number(),
});

export const toOptionJson = (option: ProductOption) => ({
  id: option.id,
  product_id: option.productId,
  name: option.name,
  price: Number(option.price),
});

export const BenefitJson = t.Object({
  id: Int(),
  product_id: Int(),
  option_id: Int(),
  name: t.String(),
});

export const toBenefitJson = (benefit: PurchaseBenefit) => ({
  id: benefit.id,
  product_id: benefit.productId,
  option_id: benefit.optionId,
  name: benefit.name,
});

/** An option with the benefits it includes, as the product's option list shows it. */
export const OptionWithBenefitsJson = t.Object({
  id: Int(),
  name: t.String(),
  price: t.Number(),
  benefits: t.Array(t.Object({ id: Int(), name: t.String() })),
});

/** An option in the product's list, with the benefits it includes by id and name only. */
export const toOptionWithBenefitsJson = (option: ProductOption, benefits: PurchaseBenefit[]) => ({
  id: option.id,
  name: option.name,
  price: Number(option.price),
  benefits: benefits.map((benefit) => ({ id: benefit.id, name: benefit.name })),
});

/** A product's options, as `GET /api/products/{product}/options` lists them. */
export const toOptionListJson = (rows: { option: ProductOption; benefits: PurchaseBenefit[] }[]) => ({
  data: rows.map((row) => toOptionWithBenefitsJson(row.option, row.benefits)),
});
