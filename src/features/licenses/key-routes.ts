import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError, Invalid } from "../../errors.ts";
import { requestState } from "../../http/request-state.ts";
import { answers } from "../../http/schemas.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { requireApiKey } from "../auth/guards.ts";
import { signedAnswers } from "../signing/signed-answers.ts";
import { checkoutAnswer } from "./files.ts";
import { CheckoutResultJson, SIGNED, ValidationResultJson } from "./json.ts";
import { CheckoutBody, namedAddress, ValidateBody } from "./schemas.ts";
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
  return { address: namedAddress(bodyIp), vouchingKey: await requireApiKey(ctx, request, headerKey) };
}
