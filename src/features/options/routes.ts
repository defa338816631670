import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { dataOf, refusals } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { toBenefitJson, toOptionJson, toOptionWithBenefitsJson } from "./json.ts";
import { BenefitJson, CreateBenefitBody, OptionJson, OptionWithBenefitsJson } from "./schemas.ts";
import { createBenefit, createOption, listOptions, NewOptionForm } from "./service.ts";

const ProductParams = t.Object({ product: IdParam("Product") });

/** The tiers a product is sold in, and the benefits each tier includes. */
export const optionRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get(
      "/api/products/:product/options",
      async ({ params, actor }) => ({
        data: (await listOptions(ctx, actor, params.product)).map((row) =>
          toOptionWithBenefitsJson(row.option, row.benefits),
        ),
      }),
      {
        auth: true,
        params: ProductParams,
        response: { 200: dataOf(t.Array(OptionWithBenefitsJson)), ...refusals(404) },
        detail: {
          summary: "A product's options with their benefits (for whoever may see the product)",
          tags: ["Products"],
        },
      },
    )
    .post(
      "/api/admin/products/:product/options",
      async ({ params, body, status }) =>
        status(201, { data: toOptionJson(await createOption(ctx, params.product, body)) }),
      {
        auth: "*",
        params: ProductParams,
        ...input(NewOptionForm),
        response: { 201: dataOf(OptionJson), ...refusals(404) },
        detail: { summary: "Add an option (tier) to a product", tags: ["Admin"] },
      },
    )
    .post(
      "/api/admin/products/:product/benefits",
      async ({ params, body, status }) =>
        status(201, { data: toBenefitJson(await createBenefit(ctx, params.product, body)) }),
      {
        auth: "*",
        params: ProductParams,
        body: CreateBenefitBody,
        response: { 201: dataOf(BenefitJson), ...refusals(404, 422) },
        detail: { summary: "Add a benefit to one of the product's options", tags: ["Admin"] },
      },
    );
