import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, dataOf } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { adminApi } from "../products/admin-api.ts";
import { ProductParams } from "../products/schemas.ts";
import {
  BenefitJson,
  OptionJson,
  OptionWithBenefitsJson,
  toBenefitJson,
  toOptionJson,
  toOptionListJson,
} from "./json.ts";
import { CreateBenefitBody } from "./schemas.ts";
import { createBenefit, createOption, listOptions, NewOptionForm } from "./service.ts";

/** The tiers a product is sold in, and the benefits each tier includes. */
export const optionRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api", tags: ["Products"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/products/:product/options",
      async ({ params, actor }) => toOptionListJson(await listOptions(ctx, actor, params.product)),
      {
        auth: true,
        params: ProductParams,
        ...answers(
          "A product's options with their benefits (for whoever may see the product)",
          { 200: dataOf(t.Array(OptionWithBenefitsJson)) },
          404,
        ),
      },
    )
    .post(
      "/admin/products/:product/options",
      async ({ params, body, status }) =>
        status(201, { data: toOptionJson(await createOption(ctx, params.product, body)) }),
      {
        ...adminApi("Add an option (tier) to a product", { 201: dataOf(OptionJson) }, 404),
        params: ProductParams,
        ...input(NewOptionForm),
      },
    )
    .post(
      "/admin/products/:product/benefits",
      async ({ params, body, status }) =>
        status(201, { data: toBenefitJson(await createBenefit(ctx, params.product, body)) }),
      {
        ...adminApi("Add a benefit to one of the product's options", { 201: dataOf(BenefitJson) }, 404, 422),
        params: ProductParams,
        body: CreateBenefitBody,
      },
    );
