import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { bearerAuth } from "../../http/auth.ts";
import { dataOf, MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pathId } from "../../validation/ids.ts";
import {
  BenefitJson,
  CreateBenefitBody,
  CreateOptionBody,
  OptionJson,
  OptionWithBenefitsJson,
} from "./schemas.ts";
import { createBenefit, createOption, listOptions, toBenefitJson, toOptionJson } from "./service.ts";

const errors = { 401: MessageJson, 403: MessageJson, 404: MessageJson, 422: ValidationJson };

/** The tiers a product is sold in, and the benefits each tier includes. */
export const optionRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(bearerAuth(ctx))
    .get(
      "/api/products/:product/options",
      async ({ params, actor }) => ({
        data: await listOptions(ctx, actor, pathId(params.product, "Product")),
      }),
      {
        auth: true,
        response: { 200: dataOf(t.Array(OptionWithBenefitsJson)), 401: MessageJson, 404: MessageJson },
        detail: {
          summary: "A product's options with their benefits (for whoever may see the product)",
          tags: ["Products"],
        },
      },
    )
    .post(
      "/api/admin/products/:product/options",
      async ({ params, body, set }) => {
        const option = await createOption(ctx, pathId(params.product, "Product"), body);
        set.status = 201;
        return { data: toOptionJson(option) };
      },
      {
        auth: "*",
        body: CreateOptionBody,
        response: { 201: dataOf(OptionJson), ...errors },
        detail: { summary: "Add an option (tier) to a product", tags: ["Admin"] },
      },
    )
    .post(
      "/api/admin/products/:product/benefits",
      async ({ params, body, set }) => {
        const benefit = await createBenefit(ctx, pathId(params.product, "Product"), body);
        set.status = 201;
        return { data: toBenefitJson(benefit) };
      },
      {
        auth: "*",
        body: CreateBenefitBody,
        response: { 201: dataOf(BenefitJson), ...errors },
        detail: { summary: "Add a benefit to one of the product's options", tags: ["Admin"] },
      },
    );
