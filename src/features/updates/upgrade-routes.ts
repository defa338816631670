import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { IdParam } from "../../validation/ids.ts";
import { SIGNED } from "../licenses/json.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { openFeed } from "./access.ts";
import { UpgradeJson, UpgradeQuery } from "./json.ts";
import { upgradeCheck } from "./upgrade.ts";

const UPGRADE_DOC = {
  summary: "Check for an upgrade (signed)",
  description:
    "With `Authorization: License <key>` (a holder's; none for a free product). `version` is the " +
    "client's (semver, else 422); `platform`, `arch` and `channel` narrow what is offered, exactly " +
    "as the update feeds decide (channels, yanks, drafts, staged rollouts)." +
    SIGNED,
};

/**
 * depot's own signed upgrade check, beside the license API it belongs with (/api/v1): for apps that
 * use depot's SDKs rather than an updater framework. The license key is the credential, as for the
 * feeds; the answer is signed like a validation's.
 */
export const upgradeRoutes = (ctx: AppContext) =>
  new Elysia({ tags: ["Update feeds"] }).get(
    "/api/v1/products/:product/upgrade",
    async ({ params, query, request }) =>
      upgradeCheck(ctx, await openFeed(ctx, request, params.product), query),
    {
      params: t.Object({ product: IdParam("Product") }),
      query: UpgradeQuery,
      mapResponse: signedAnswers(ctx.signing),
      ...answers(UPGRADE_DOC, { 200: UpgradeJson }, 401, 403, 404, 422),
    },
  );
