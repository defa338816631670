import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, noContent } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { bearerAuth } from "../auth/guards.ts";
import { PolicyDataJson, PolicyListJson, toPolicyDataJson, toPolicyListJson } from "./json.ts";
import {
  createPolicy,
  deletePolicy,
  findPolicy,
  listPolicies,
  NewPolicyForm,
  PolicyChangeForm,
  updatePolicy,
} from "./service.ts";

const WHO =
  "For whoever manages the product's licenses: its owners (`user_id` or `vendor_id`) with a session or a " +
  "token with every ability (`*`), `products.manage` and admins; a product the caller may not see is a " +
  "404, one they may see but not manage a 403.";
const ProductParams = t.Object({ product: IdParam("Product") });
const PolicyParams = t.Object({ product: IdParam("Product"), policy: IdParam("License policy") });

const policyApi = <R extends Parameters<typeof answers>[1]>(summary: string, success: R) => ({
  auth: true as const,
  ...answers({ summary, description: WHO }, success, 404),
});

/**
 * A product's license policies at /api/products/{product}/license-policies: named templates its
 * licenses are made from (`policy` on both license-creating APIs), which they follow when it changes.
 */
export const policyRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/products/:product/license-policies", tags: ["Licenses"] })
    .use(bearerAuth(ctx))
    .use(forms(ctx))
    .get("", async ({ params, actor }) => toPolicyListJson(await listPolicies(ctx, actor, params.product)), {
      ...policyApi("A product's license policies, by name", { 200: PolicyListJson }),
      params: ProductParams,
    })
    .post(
      "",
      async ({ params, body, actor, status }) =>
        status(201, toPolicyDataJson(await createPolicy(ctx, actor, params.product, body))),
      {
        ...policyApi("Make a license policy: a name and the settings its licenses take", {
          201: PolicyDataJson,
        }),
        params: ProductParams,
        ...input(NewPolicyForm),
      },
    )
    .get("/:policy", async ({ params, actor }) => toPolicyDataJson(await findPolicy(ctx, actor, params)), {
      ...policyApi("One license policy", { 200: PolicyDataJson }),
      params: PolicyParams,
    })
    .patch(
      "/:policy",
      async ({ params, body, actor }) => toPolicyDataJson(await updatePolicy(ctx, actor, params, body)),
      {
        ...policyApi("Change a policy; its licenses follow in every setting they do not name themselves", {
          200: PolicyDataJson,
        }),
        params: PolicyParams,
        ...input(PolicyChangeForm),
      },
    )
    .delete("/:policy", ({ params, actor }) => noContent(deletePolicy(ctx, actor, params)), {
      ...policyApi("Delete a policy; its licenses keep their settings as their own", {}),
      params: PolicyParams,
    });
