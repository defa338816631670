import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { assertValid } from "../../validation/messages.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { compactJws } from "../signing/jws.ts";
import { type LicenseJson, toLicenseJson, type ValidationResultJson } from "./json.ts";
import { Ttl } from "./schemas.ts";
import { findLicense } from "./service.ts";

/** How long a license file lasts when the request does not say, and the range a request may ask for. */
export const LICENSE_FILE_TTL = { default: 30 * 86_400, min: 3_600, max: 365 * 86_400 } as const;
export const LICENSE_FILE_TYPE = "depot-license+jwt";
const ARMOUR = "DEPOT LICENSE FILE";

export interface LicenseFile {
  /** The JWS between `-----BEGIN DEPOT LICENSE FILE-----` and `-----END …-----` lines. */
  readonly text: string;
  readonly expiresAt: Date;
}

/**
 * A signed, offline copy of a license: a compact JWS whose claims are the license, valid until the
 * earlier of the license's own expiry and now + `ttlSeconds`. Software that cannot reach depot checks
 * the file against the published keys instead.
 */
export function issueLicenseFile(
  ctx: Pick<AppContext, "config" | "signing">,
  license: LicenseJson,
  ttlSeconds: number = LICENSE_FILE_TTL.default,
  now = new Date(),
): LicenseFile {
  const iat = Math.floor(now.getTime() / 1000);
  const untilTtl = iat + ttlSeconds;
  const untilLicense = license.expires ? Math.floor(Date.parse(license.expires) / 1000) : untilTtl;
  const exp = Math.min(untilTtl, untilLicense);
  const jws = compactJws(ctx.signing.current(), LICENSE_FILE_TYPE, {
    iss: ctx.config.appUrl,
    sub: license.id,
    iat,
    exp,
    key: license.key,
    product_id: license.productId,
    user_id: license.userId,
    creator_id: license.creatorId,
    max_ips: license.maxIps,
    expires: license.expires,
  });
  return { text: armour(jws), expiresAt: new Date(exp * 1000) };
}

/** A checkout's answer: the validation's, and when it is valid a license file of `ttlSeconds`. */
export function checkoutAnswer(
  ctx: Pick<AppContext, "config" | "signing">,
  answer: ValidationResultJson,
  ttlSeconds?: number,
) {
  if (!answer.valid || !answer.license) return answer;
  const file = issueLicenseFile(ctx, answer.license, ttlSeconds);
  return { ...answer, license_file: file.text, license_file_expires_at: file.expiresAt.toISOString() };
}

/** PEM-style lines of 64 characters, so the file survives e-mail and copy-paste. */
const armour = (jws: string) =>
  `-----BEGIN ${ARMOUR}-----\n${jws.match(/.{1,64}/g)?.join("\n")}\n-----END ${ARMOUR}-----\n`;

/**
 * The file for license `id`, for an API key that may act for it (anything else: the same 404 as
 * elsewhere). A revoked or expired license never gets one: 409.
 */
export async function licenseFileFor(
  ctx: Pick<AppContext, "db" | "config" | "signing">,
  apiKey: ApiKeyActor,
  id: string,
  ttlSeconds: number,
): Promise<{ license: LicenseJson; file: LicenseFile }> {
  const license = await findLicense(ctx, apiKey, id);
  if (license.revokedAt !== null)
    throw new AppError(409, "This license has been revoked; it gets no license file.");
  if (license.expires !== null && license.expires.getTime() <= Date.now()) {
    throw new AppError(409, "This license has expired; it gets no license file.");
  }
  const json = toLicenseJson(license);
  return { license: json, file: issueLicenseFile(ctx, json, ttlSeconds) };
}

const TtlQuery = t.Object({ ttl: Ttl });

/** `?ttl=` as seconds: digits within the range, the default when absent; anything else is a 422. */
export function ttlFromQuery(raw: string | undefined): number {
  if (raw === undefined) return LICENSE_FILE_TTL.default;
  const query = { ttl: /^\d{1,12}$/.test(raw) ? Number(raw) : raw };
  assertValid(TtlQuery, query);
  return query.ttl;
}
