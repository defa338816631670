import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { forms, input } from "../../http/forms.ts";
import { refusals } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { UuidParam } from "../../validation/ids.ts";
import { apiKeyAuth } from "../auth/guards.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { licenseFileFor, ttlFromQuery } from "./files.ts";
import {
  LicenseIpsJson,
  LicenseJson,
  LicensePageJson,
  SIGNED,
  toLicenseIpJson,
  toLicenseJson,
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
  updateLicense,
} from "./service.ts";

const tags = ["Licenses"];
// Every operation of the license API has always documented these refusals; its clients may count on them.
const answers = refusals(403, 404, 422);
const LicenseParams = t.Object({ id: UuidParam("License") });
const AddressParams = t.Object({ id: UuidParam("License"), ip: t.String() });

/** The license API at /api/v1/licenses, for a vendor's systems with an `x-api-key`. */
export const v1LicenseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(apiKeyAuth(ctx))
    .use(forms(ctx))
    .post(
      "/api/v1/licenses",
      async ({ body, apiKey, status }) => status(201, toLicenseJson(await createLicense(ctx, apiKey, body))),
      {
        apiKey: true,
        ...input(NewLicenseForm),
        response: { 201: LicenseJson, ...answers },
        detail: { summary: "Create a license", tags },
      },
    )
    .get(
      "/api/v1/licenses",
      async ({ query, apiKey }) => {
        const result = await listLicenses(ctx, apiKey, pageRequest({ page: query.page }).page);
        return { licenses: result.licenses.map(toLicenseJson), nextPage: result.nextPage };
      },
      {
        apiKey: true,
        query: LicenseListQuery,
        response: { 200: LicensePageJson, ...answers },
        detail: { summary: "List licenses, oldest first, 50 a page", tags },
      },
    )
    .get(
      "/api/v1/licenses/:id",
      async ({ params, apiKey }) => ({
        licenses: [toLicenseJson(await findLicense(ctx, apiKey, params.id))],
        nextPage: null,
      }),
      {
        apiKey: true,
        params: LicenseParams,
        response: { 200: LicensePageJson, ...answers },
        detail: { summary: "Read a license by id (not by key), in the list's shape", tags },
      },
    )
    .patch(
      "/api/v1/licenses/:id",
      async ({ params, body, apiKey }) => toLicenseJson(await updateLicense(ctx, apiKey, params.id, body)),
      {
        apiKey: true,
        params: LicenseParams,
        ...input(LicenseChangeForm),
        response: { 200: LicenseJson, ...answers },
        detail: { summary: "Change any of ownerId, creatorId, productId, expires, maxIps", tags },
      },
    )
    .delete(
      "/api/v1/licenses/:id",
      async ({ params, apiKey, set }) => {
        await revokeLicense(ctx, apiKey, params.id);
        set.status = 204;
      },
      {
        apiKey: true,
        params: LicenseParams,
        response: answers,
        detail: { summary: "Revoke a license (it stays readable; validation answers REVOKED)", tags },
      },
    )
    .get(
      "/api/v1/licenses/:id/file",
      async ({ params, query, apiKey, set }) => {
        const { license, file } = await licenseFileFor(ctx, apiKey, params.id, ttlFromQuery(query.ttl));
        set.headers["content-type"] = "application/x-pem-file";
        set.headers["content-disposition"] = `attachment; filename="depot-license-${license.id}.lic"`;
        return file.text;
      },
      {
        apiKey: true,
        params: LicenseParams,
        query: LicenseFileQuery,
        response: { 200: t.String(), ...answers, ...refusals(409) },
        mapResponse: signedAnswers(ctx.signing),
        detail: {
          summary: "A signed license file for offline checks (revoked or expired: 409)",
          description:
            "The file is a JWS (`typ: depot-license+jwt`, EdDSA) between armour lines, valid until the " +
            "earlier of the license's expiry and now + `ttl` seconds (default 30 days)." +
            SIGNED,
          tags,
        },
      },
    )
    .get(
      "/api/v1/licenses/:id/ips",
      async ({ params, apiKey }) => ({ ips: (await listIps(ctx, apiKey, params.id)).map(toLicenseIpJson) }),
      {
        apiKey: true,
        params: LicenseParams,
        response: { 200: LicenseIpsJson, ...answers },
        detail: { summary: "The addresses a license is registered from", tags },
      },
    )
    .delete(
      "/api/v1/licenses/:id/ips",
      async ({ params, apiKey, set }) => {
        await forgetLicenseIps(ctx, apiKey, params.id, null);
        set.status = 204;
      },
      {
        apiKey: true,
        params: LicenseParams,
        response: answers,
        detail: { summary: "Forget all of a license's addresses", tags },
      },
    )
    .delete(
      "/api/v1/licenses/:id/ips/:ip",
      async ({ params, apiKey, set }) => {
        await forgetLicenseIps(ctx, apiKey, params.id, addressInPath(params.ip));
        set.status = 204;
      },
      {
        apiKey: true,
        params: AddressParams,
        response: answers,
        detail: { summary: "Forget one address of a license", tags },
      },
    );
