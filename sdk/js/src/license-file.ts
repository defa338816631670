import { fromBase64Url, fromUtf8, utf8 } from "./encoding.js";
import { DepotError, LicenseFileError } from "./errors.js";
import type { KeySet } from "./jwks.js";
import { sameId, sameKey } from "./subject.js";
import type { LicenseFile } from "./types.js";

export interface LicenseFileOptions {
  /** The license key the file must be for. */
  key?: string;
  /** The machine the file must be bound to. */
  fingerprint?: string;
  /** What "now" is (default: the client's clock). */
  now?: Date;
  /** How long after `exp` the file is still accepted, in seconds (default 0). */
  graceSeconds?: number;
}

export interface LicenseFileContext {
  keys: KeySet;
  /** The expected issuer: the client's server, without a trailing slash. */
  issuer: string;
  productId: string;
  maxClockSkewSeconds: number;
}

const ARMOUR = /-----BEGIN DEPOT LICENSE FILE-----([\s\S]*?)-----END DEPOT LICENSE FILE-----/;
const TYPE = "depot-license+jwt";

/**
 * Verifies a license file offline: an EdDSA compact JWS of type depot-license+jwt by a trusted key,
 * issued by this server, in its time window, for this product (and key, and machine, when given).
 * Returns its claims; throws LicenseFileError naming the rule it broke.
 */
export async function verifyLicenseFile(
  context: LicenseFileContext,
  text: string,
  options: LicenseFileOptions & { now: Date },
): Promise<LicenseFile> {
  const jws = (ARMOUR.exec(text)?.[1] ?? text).replace(/\s+/g, "");
  const parts = jws.split(".");
  const [headerText, payloadText, signatureText] = parts;
  const header = parts.length === 3 ? jsonPart(headerText) : null;
  const signature = fromBase64Url(signatureText ?? "");
  if (header === null || signature === null || fromBase64Url(payloadText ?? "") === null) {
    throw new LicenseFileError("not a DEPOT LICENSE FILE (an armoured compact JWS)", "format");
  }
  // typ keeps another JWT that depot's keys might sign from passing as a license file.
  if (header.alg !== "EdDSA") throw new LicenseFileError(`the file's alg is not EdDSA`, "header");
  if (header.typ !== TYPE) throw new LicenseFileError(`the file's typ is not ${TYPE}`, "header");
  if (typeof header.kid !== "string") throw new LicenseFileError("the file's header names no kid", "header");
  let key: CryptoKey;
  try {
    key = await context.keys.key(header.kid);
  } catch (error) {
    if (!(error instanceof DepotError)) throw error;
    throw new LicenseFileError(error.message, "key");
  }
  const signed = utf8(`${headerText}.${payloadText}`);
  if (signature.length !== 64 || !(await crypto.subtle.verify("Ed25519", key, signature, signed))) {
    throw new LicenseFileError("signature verification failed", "signature");
  }
  // Only now is the payload depot's, and worth reading.
  const payload = jsonPart(payloadText);
  if (payload === null) throw new LicenseFileError("the file's payload is not a JSON object", "format");
  return checkClaims(context, payload, options);
}

function checkClaims(
  context: LicenseFileContext,
  claims: Record<string, unknown>,
  options: LicenseFileOptions & { now: Date },
): LicenseFile {
  // A file from another depot (the same app sold by another vendor) must not unlock this one.
  if (claims.iss !== context.issuer) {
    throw new LicenseFileError(
      `the file was issued by ${JSON.stringify(claims.iss)}, expected "${context.issuer}"`,
      "issuer",
    );
  }
  const now = options.now.getTime() / 1000;
  const { iat, exp, nbf } = claims;
  if (typeof iat !== "number" || typeof exp !== "number" || (nbf !== undefined && typeof nbf !== "number")) {
    throw new LicenseFileError("the file's iat, exp or nbf is not a number", "format");
  }
  const notBefore = Math.max(iat, nbf ?? iat);
  if (notBefore > now + context.maxClockSkewSeconds) {
    throw new LicenseFileError(`the file is not valid before ${isoSeconds(notBefore)}`, "not-yet-valid");
  }
  if (exp + (options.graceSeconds ?? 0) <= now) {
    throw new LicenseFileError(`the file expired at ${isoSeconds(exp)}`, "expired");
  }
  const licenseExpires = typeof claims.expires === "string" ? new Date(claims.expires) : null;
  if (licenseExpires !== null && !(licenseExpires.getTime() > options.now.getTime())) {
    throw new LicenseFileError(`the license expired at ${claims.expires}`, "expired");
  }
  if (!sameId(claims.product_id, context.productId)) {
    throw new LicenseFileError("the file is for another product", "product");
  }
  if (typeof claims.key !== "string" || (options.key !== undefined && !sameKey(claims.key, options.key))) {
    throw new LicenseFileError("the file is for another license key", "license-key");
  }
  const fingerprint = typeof claims.fingerprint === "string" ? claims.fingerprint : null;
  // A file copied from another machine must not unlock this one.
  if (options.fingerprint !== undefined && fingerprint !== options.fingerprint) {
    throw new LicenseFileError(
      fingerprint === null ? "the file is not bound to a machine" : "the file is bound to another machine",
      "fingerprint",
    );
  }
  return {
    key: claims.key,
    productId: String(claims.product_id),
    licenseId: String(claims.sub),
    issuer: context.issuer,
    issuedAt: new Date(iat * 1000),
    expiresAt: new Date(exp * 1000),
    licenseExpires,
    fingerprint,
    machineId: typeof claims.machine_id === "string" ? claims.machine_id : null,
    claims,
  };
}

function jsonPart(part: string | undefined): Record<string, unknown> | null {
  const bytes = fromBase64Url(part ?? "");
  if (bytes === null) return null;
  try {
    const value: unknown = JSON.parse(fromUtf8(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const isoSeconds = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
