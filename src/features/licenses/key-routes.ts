import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { countValidation } from "../stats/record.ts";
import { checkoutAnswer } from "./files.ts";
import { CheckoutResultJson, SIGNED, ValidationResultJson } from "./json.ts";
import { addressToCheck } from "./key-access.ts";
import { CheckoutBody, ValidateBody } from "./schemas.ts";
import { validateLicenseKey } from "./validate.ts";

/**
 * The routes a license key opens, for shipped software: /api/v1/licenses/validate and /checkout. The
 * key in the body is the credential; an `x-api-key` only vouches for an address named in the body.
 * Validation is the hot path (bench/README.md): these routes take no guard, form or path schema.
 */
export const licenseKeyRoutes = (ctx: AppContext) => {
  const check = async (
    request: Request,
    body: typeof ValidateBody.static,
    route: "validate" | "checkout",
  ) => {
    const { address, vouchingKey } = await addressToCheck(ctx, request, body.ip);
    const answer = await validateLicenseKey(ctx, { ...body, ip: address, vouchingKey });
    ctx.metrics?.validation(route, answer.code);
    countValidation(ctx, body.productId, answer);
    return answer;
  };
  /** A key route's entry: every answer signed (and said so), and the refusals its clients were always told of. */
  const keyApi = <R extends Parameters<typeof answers>[1]>(
    summary: string,
    description: string,
    success: R,
  ) => ({
    mapResponse: signedAnswers(ctx.signing),
    ...answers({ summary, description: description + SIGNED }, success, 400, 401, 403, 422),
  });

  return new Elysia({ prefix: "/api/v1/licenses", tags: ["Licenses"] })
    .post("/validate", ({ body, request }) => check(request, body, "validate"), {
      body: ValidateBody,
      ...keyApi(
        "Validate a license key (no API key needed; the key is the credential)",
        "Codes in order: NOT_FOUND, REVOKED, EXPIRED, PRODUCT_MISMATCH, TOO_MANY_IPS, VALID. The address is " +
          "the caller's; a body `ip` is honoured only with an x-api-key that may act for the license.",
        { 200: ValidationResultJson },
      ),
    })
    .post(
      "/checkout",
      async ({ body: { ttl, ...key }, request }) =>
        checkoutAnswer(ctx, await check(request, key, "checkout"), ttl),
      {
        body: CheckoutBody,
        ...keyApi(
          "Validate a license key and, when valid, get a signed license file for offline checks",
          "Validates exactly like /validate (codes, IP counting, nonce). A valid answer adds `license_file`, " +
            "a JWS (`typ: depot-license+jwt`, EdDSA) between armour lines, valid until the earlier of the " +
            "license's expiry and now + `ttl` seconds (default 30 days).",
          { 200: CheckoutResultJson },
        ),
      },
    );
};
