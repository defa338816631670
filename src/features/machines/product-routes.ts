import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers, noContent, refusals } from "../../http/schemas.ts";
import { IdParam, UuidParam } from "../../validation/ids.ts";
import { Int } from "../../validation/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { LICENSE_FILE_TTL } from "../licenses/schemas.ts";
import { offlineFileAnswer } from "./activation-answer.ts";
import {
  MachineFileValidJson,
  OfflineFileJson,
  ownCodedRefusals,
  ProductMachinesJson,
  toProductMachinesJson,
} from "./json.ts";
import { OfflineExchangeBody } from "./offline.ts";
import {
  activateProductOffline,
  deactivateProductMachine,
  productLicenseMachines,
} from "./product-machines.ts";
import { DeactivateQuery, forceRequested } from "./schemas.ts";

const WHO =
  "For the product's owners (`user_id` or `vendor_id`) with a session or a token with every ability " +
  "(`*`), `products.manage` and admins, as for the product's licenses; a product the caller may not " +
  "see, or a license of another product, is a 404, a product they may see but not manage a 403.";
const LicenseParams = t.Object({ product: IdParam("Product"), license: UuidParam("License") });
const MachineParams = t.Object({ ...LicenseParams.properties, machine: UuidParam("Machine") });

/** An operation on a product's license's machines: a session or a bearer token, who may (WHO). */
const productApi = <R extends Parameters<typeof answers>[1]>(
  summary: string,
  description: string,
  success: R,
) => ({
  auth: true as const,
  ...answers({ summary, description: `${description} ${WHO}` }, success, 403, 404),
});

/** The vendor's offline exchange: the app's request, and the file's lifetime they chose. */
const VendorOfflineBody = t.Object(
  {
    ...OfflineExchangeBody.properties,
    ttl: t.Optional(
      Int({
        minimum: LICENSE_FILE_TTL.min,
        maximum: LICENSE_FILE_TTL.max,
        description:
          "the file's lifetime in seconds, an hour to a year (default 30 days), cut to the license's license_file_ttl_max",
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * A license's machines at /api/products/{product}/licenses/{license}/machines, for the product's
 * vendor supporting a customer from the dashboard: see them, free a seat, activate an air-gapped one.
 */
export const productMachineRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/products/:product/licenses/:license/machines", tags: ["Machines"] })
    .use(bearerAuth(ctx))
    .get(
      "",
      async ({ params, actor }) => toProductMachinesJson(await productLicenseMachines(ctx, actor, params)),
      {
        ...productApi(
          "A product's license's machines, oldest first, alive or not",
          "With `license_file_ttl_max`, the longest an offline activation's license file lasts for it.",
          { 200: ProductMachinesJson },
        ),
        params: LicenseParams,
      },
    )
    .delete(
      "/:machine",
      ({ params, query, actor }) =>
        noContent(deactivateProductMachine(ctx, actor, params, forceRequested(query.force))),
      {
        ...productApi(
          "Deactivate one of the license's machines, freeing its seat",
          "A machine whose license file is still valid keeps its seat until the file expires: 409 " +
            "MACHINE_FILE_VALID with `fileExpiresAt`, unless `?force=true`, which frees the seat and revokes " +
            "nothing (the file keeps working offline until it expires).",
          { ...refusals(422), 409: MachineFileValidJson },
        ),
        params: MachineParams,
        query: DeactivateQuery,
      },
    )
    .post(
      "/offline",
      async ({ params, body, actor }) =>
        offlineFileAnswer(await activateProductOffline(ctx, actor, params, body)),
      {
        ...productApi(
          "Exchange a customer's air-gapped activation request for its license file",
          "The request (base64 of {v: 1, key, fingerprint, name?, platform?, hostname?}) must carry this " +
            "license's key. The machine is activated like any other (201 new, 200 already active; 403 " +
            "REVOKED or EXPIRED, 409 TOO_MANY_MACHINES, 429 TOO_MANY_ACTIVATIONS) and the answer carries its " +
            "machine-bound license file, lasting `ttl` cut to the license's ceiling (`license_file_expires_at`).",
          {
            200: OfflineFileJson,
            201: OfflineFileJson,
            ...refusals(422),
            ...ownCodedRefusals(409, 429),
          },
        ),
        params: LicenseParams,
        body: VendorOfflineBody,
      },
    );
