import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { answers, noContent, refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../page-request.ts";
import { UuidParam } from "../../validation/ids.ts";
import { apiKeyAuth } from "../auth/guards.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { asAttachment, licenseFileFor } from "./files.ts";
import {
  LicenseIpsJson,
  LicenseJson,
  LicensePageJson,
  SIGNED,
  toLicenseIpJson,
  toLicenseJson,
  toLicensePageJson,
} from "./json.ts";
import { addressInPath, LicenseFileQuery, LicenseListQuery } from "./schemas.ts";
import {
  createLicense,
  findLicense,
  forgetLicenseIps,
  LicenseChangeForm,
  listIps,
  listLicenses,
  NewLicenseForm,
  revokeLicense,
  sellLicense,
  updateLicense,
} from "./service.ts";

const LicenseParams = t.Object({ id: UuidParam("License") });
const AddressParams = t.Object({ id: UuidParam("License"), ip: t.String() });

/** An operation of the license API: an `x-api-key`, and the refusals its clients have always been told of. */
const licenseApi = <R extends Parameters<typeof answers>[1]>(
  summary: Parameters<typeof answers>[0],
  success: R,
) => ({
  apiKey: true as const,
  ...answers(summary, success, 403, 404, 422),
});

/** The license API at /api/v1/licenses, for a vendor's systems with an `x-api-key`. */
export const v1LicenseRoutes = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/v1/licenses", tags: ["Licenses"] })
    .use(apiKeyAuth(ctx))
    .use(forms(ctx))
    .post(
      "",
      async ({ body, apiKey, status }) => {
        const { ownerEmail } = body;
        const license =
          ownerEmail === undefined
            ? await createLicense(ctx, apiKey, body)
            : await sellLicense(ctx, apiKey, { ...body, ownerEmail });
        return status(201, toLicenseJson(license));
      },
      {
        ...licenseApi(
          {
            summary: "Create a license",
            description:
              "The owner is `ownerId`, or `ownerEmail` (+ `ownerName`): an address nobody has becomes a " +
              "customer, who is e-mailed the key and a set-password link when SMTP_URL is set.",
          },
          { 201: LicenseJson },
        ),
        ...input(NewLicenseForm),
      },
    )
    .get(
      "",
      async ({ query, apiKey }) => {
        const { licenses, nextPage } = await listLicenses(ctx, apiKey, pageRequest(query).page);
        return toLicensePageJson(licenses, nextPage);
      },
      {
        ...licenseApi("List licenses, oldest first, 50 a page", { 200: LicensePageJson }),
        query: LicenseListQuery,
      },
    )
    .get(
      "/:id",
      async ({ params, apiKey }) => toLicensePageJson([await findLicense(ctx, apiKey, params.id)]),
      {
        ...licenseApi("Read a license by id (not by key), in the list's shape", { 200: LicensePageJson }),
        params: LicenseParams,
      },
    )
    .patch(
      "/:id",
      async ({ params, body, apiKey }) => toLicenseJson(await updateLicense(ctx, apiKey, params.id, body)),
      {
        ...licenseApi(
          {
            summary: "Change any of ownerId, creatorId, productId, expires, maxIps, policy",
            description:
              "`policy`: the settings the license has not named itself (at creation or by a change) take the " +
              "policy's values and follow it; null detaches it, keeping its values as its own.",
          },
          { 200: LicenseJson },
        ),
        params: LicenseParams,
        ...input(LicenseChangeForm),
      },
    )
    .delete("/:id", ({ params, apiKey }) => noContent(revokeLicense(ctx, apiKey, params.id)), {
      ...licenseApi("Revoke a license (it stays readable; validation answers REVOKED)", {}),
      params: LicenseParams,
    })
    .get(
      "/:id/file",
      async ({ params, query, apiKey, set }) =>
        asAttachment(set.headers, await licenseFileFor(ctx, apiKey, params.id, query.ttl)),
      {
        ...licenseApi(
          {
            summary: "A signed license file for offline checks (revoked or expired: 409)",
            description:
              "The file is a JWS (`typ: depot-license+jwt`, EdDSA) between armour lines, valid until the " +
              "earlier of the license's expiry and now + `ttl` seconds (default 30 days)." +
              SIGNED,
          },
          { 200: t.String(), ...refusals(409) },
        ),
        params: LicenseParams,
        query: LicenseFileQuery,
        mapResponse: signedAnswers(ctx.signing),
      },
    )
    .get(
      "/:id/ips",
      async ({ params, apiKey }) => ({ ips: (await listIps(ctx, apiKey, params.id)).map(toLicenseIpJson) }),
      {
        ...licenseApi("The addresses a license is registered from", { 200: LicenseIpsJson }),
        params: LicenseParams,
      },
    )
    .delete("/:id/ips", ({ params, apiKey }) => noContent(forgetLicenseIps(ctx, apiKey, params.id, null)), {
      ...licenseApi("Forget all of a license's addresses", {}),
      params: LicenseParams,
    })
    .delete(
      "/:id/ips/:ip",
      ({ params, apiKey }) => noContent(forgetLicenseIps(ctx, apiKey, params.id, addressInPath(params.ip))),
      {
        ...licenseApi("Forget one address of a license", {}),
        params: AddressParams,
      },
    );
