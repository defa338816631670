import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError, Invalid, Unauthenticated } from "../../errors.ts";
import { apiKeyAuth, bearerAuth } from "../../http/auth.ts";
import { normaliseIp } from "../../http/client-ip.ts";
import { requestState } from "../../http/request-state.ts";
import { MessageJson, ValidationJson } from "../../http/schemas.ts";
import { pageRequest } from "../../pagination.ts";
import { authenticateApiKey } from "../api-keys/service.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { issueLicenseFile, licenseFileFor, ttlFromQuery } from "./files.ts";
import { resetOwnLicenseIps } from "./ip-resets.ts";
import {
  CheckoutBody,
  CheckoutResultJson,
  CreateLicenseBody,
  LicenseFileQuery,
  LicenseIpsJson,
  LicenseJson,
  LicenseListQuery,
  LicensePageJson,
  UpdateLicenseBody,
  ValidateBody,
  ValidationResultJson,
} from "./schemas.ts";
import {
  createLicense,
  findLicense,
  forgetLicenseIps,
  listIps,
  listLicenses,
  revokeLicense,
  toLicenseJson,
  updateLicense,
} from "./service.ts";
import { validateLicenseKey } from "./validate.ts";

const errors = { 401: MessageJson, 403: MessageJson, 404: MessageJson, 422: ValidationJson };
const tags = ["Licenses"];
const validationErrors = { 400: MessageJson, 401: MessageJson, 403: MessageJson, 422: ValidationJson };
const SIGNED =
  " Every answer, errors included, is signed: `Content-Digest` (RFC 9530) and an Ed25519 `Signature` " +
  "(RFC 9421) by a key in `/.well-known/jwks.json`.";

/** The license API (`x-api-key`), validation, and the owner's IP reset. */
export const licenseRoutes = (ctx: AppContext) =>
  new Elysia()
    .use(apiKeyAuth(ctx))
    .use(bearerAuth(ctx))
    .post(
      "/api/v1/licenses/validate",
      async ({ body, request }) => {
        const { address, vouchingKey } = await addressToCheck(ctx, request, body.ip);
        const answer = await validateLicenseKey(ctx, { ...body, ip: address, vouchingKey });
        ctx.metrics?.validation("validate", answer.code);
        return answer;
      },
      {
        body: ValidateBody,
        response: { 200: ValidationResultJson, ...validationErrors },
        mapResponse: signedAnswers(ctx.signing),
        detail: {
          summary: "Validate a license key (no API key needed; the key is the credential)",
          description:
            "Codes in order: NOT_FOUND, REVOKED, EXPIRED, PRODUCT_MISMATCH, TOO_MANY_IPS, VALID. The address is " +
            "the caller's; a body `ip` is honoured only with an x-api-key that may act for the license." +
            SIGNED,
          tags,
        },
      },
    )
    .post(
      "/api/v1/licenses/checkout",
      async ({ body, request }) => {
        const { ttl, ...check } = body;
        const { address, vouchingKey } = await addressToCheck(ctx, request, check.ip);
        const answer = await validateLicenseKey(ctx, { ...check, ip: address, vouchingKey });
        ctx.metrics?.validation("checkout", answer.code);
        if (!answer.valid || !answer.license) return answer;
        const file = issueLicenseFile(ctx, answer.license, ttl);
        return { ...answer, license_file: file.text, license_file_expires_at: file.expiresAt.toISOString() };
      },
      {
        body: CheckoutBody,
        response: { 200: CheckoutResultJson, ...validationErrors },
        mapResponse: signedAnswers(ctx.signing),
        detail: {
          summary: "Validate a license key and, when valid, get a signed license file for offline checks",
          description:
            "Validates exactly like /validate (codes, IP counting, nonce). A valid answer adds `license_file`, " +
            "a JWS (`typ: depot-license+jwt`, EdDSA) between armour lines, valid until the earlier of the " +
            "license's expiry and now + `ttl` seconds (default 30 days)." +
            SIGNED,
          tags,
        },
      },
    )
    .post(
      "/api/v1/licenses",
      async ({ body, apiKey, set }) => {
        set.status = 201;
        return toLicenseJson(await createLicense(ctx, apiKey, body));
      },
      {
        apiKey: true,
        body: CreateLicenseBody,
        response: { 201: LicenseJson, ...errors },
        detail: { summary: "Create a license", tags },
      },
    )
    .get(
      "/api/v1/licenses",
      async ({ query, apiKey }) => {
        const { page } = pageRequest({ page: query.page });
        const result = await listLicenses(ctx, apiKey, page);
        return { licenses: result.licenses.map(toLicenseJson), nextPage: result.nextPage };
      },
      {
        apiKey: true,
        query: LicenseListQuery,
        response: { 200: LicensePageJson, ...errors },
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
        response: { 200: LicensePageJson, ...errors },
        detail: { summary: "Read a license by id (not by key), in the list's shape", tags },
      },
    )
    .patch(
      "/api/v1/licenses/:id",
      async ({ params, body, apiKey }) => toLicenseJson(await updateLicense(ctx, apiKey, params.id, body)),
      {
        apiKey: true,
        body: UpdateLicenseBody,
        response: { 200: LicenseJson, ...errors },
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
        response: errors,
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
        query: LicenseFileQuery,
        response: { 200: t.String(), 409: MessageJson, ...errors },
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
      async ({ params, apiKey }) => ({ ips: await listIps(ctx, apiKey, params.id) }),
      {
        apiKey: true,
        response: { 200: LicenseIpsJson, ...errors },
        detail: { summary: "The addresses a license is registered from", tags },
      },
    )
    .delete(
      "/api/v1/licenses/:id/ips",
      async ({ params, apiKey, set }) => {
        await forgetLicenseIps(ctx, apiKey, params.id, null);
        set.status = 204;
      },
      { apiKey: true, response: errors, detail: { summary: "Forget all of a license's addresses", tags } },
    )
    .delete(
      "/api/v1/licenses/:id/ips/:ip",
      async ({ params, apiKey, set }) => {
        const ip = normaliseIp(decodeURIComponent(params.ip));
        if (ip === null) throw new Invalid({ ip: ["The ip field must be a valid IP address."] });
        await forgetLicenseIps(ctx, apiKey, params.id, ip);
        set.status = 204;
      },
      { apiKey: true, response: errors, detail: { summary: "Forget one address of a license", tags } },
    )
    .delete(
      "/api/licenses/:id/ips",
      async ({ params, actor, set }) => {
        await resetOwnLicenseIps(ctx, actor, params.id);
        set.status = 204;
      },
      {
        auth: true,
        response: { 401: MessageJson, 404: MessageJson, 429: MessageJson },
        detail: { summary: "The license owner forgets its addresses (3 times a day)", tags },
      },
    );

/**
 * The address a validation is for. The caller's own, unless the body names one: that is honoured only
 * with an `x-api-key` that may act for the license, or anyone could claim a registered address.
 */
async function addressToCheck(
  ctx: AppContext,
  request: Request,
  bodyIp: string | undefined,
): Promise<{ address: string; vouchingKey: ApiKeyActor | null }> {
  if (bodyIp === undefined) {
    const address = requestState(request).ip;
    if (address === null) throw new AppError(400, "The client address could not be determined.");
    return { address, vouchingKey: null };
  }
  const headerKey = request.headers.get("x-api-key");
  if (headerKey === null) throw new Invalid({ ip: ["The ip field is only accepted with an x-api-key."] });
  const apiKey = await authenticateApiKey(ctx, headerKey);
  if (!apiKey) throw new Unauthenticated("Invalid API key.", "ApiKey");
  const address = normaliseIp(bodyIp);
  if (address === null) throw new Invalid({ ip: ["The ip field must be a valid IP address."] });
  return { address, vouchingKey: apiKey };
}
