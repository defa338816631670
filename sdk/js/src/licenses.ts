import type { VerifiedAnswer } from "./answer.js";
import { type Core, type Exchange, notAnAnswer } from "./core.js";
import { fromBase64, toBase64 } from "./encoding.js";
import type { RawAnswer } from "./http.js";
import { verifyLicenseFile } from "./license-file.js";
import { StateStore } from "./state.js";
import { aboutSomethingElse, checkLicense, checkMachine } from "./subject.js";
import type { License, Machine, Validation } from "./types.js";

export interface ValidateOptions {
  /** This machine's fingerprint (required by a license with machines). */
  fingerprint?: string;
}

export interface CheckoutOptions extends ValidateOptions {
  /** How long the license file lasts, in seconds (3600 to 31536000; depot's default 30 days). */
  ttl?: number;
}

/** The headers a kept answer needs to be verified again. */
const SIGNED_HEADERS = ["content-type", "content-digest", "signature-input", "signature"];

/** POST /api/v1/licenses/validate (or /checkout): a verified Validation, kept for status(). */
export async function validate(
  core: Core,
  key: string,
  options: CheckoutOptions,
  route: "validate" | "checkout" = "validate",
): Promise<Validation> {
  const exchange = await core.ask(`/api/v1/licenses/${route}`, (nonce) => ({
    method: "POST",
    body: JSON.stringify({
      key,
      productId: core.settings.productId,
      nonce,
      ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }),
      ...(options.ttl === undefined ? {} : { ttl: options.ttl }),
    }),
  }));
  if (exchange.answer.status !== 200) throw core.refusal(exchange);
  const validation = toValidation(core, exchange.answer, key, options.fingerprint);
  const id = await StateStore.idOf(core.settings.productId, key, options.fingerprint);
  if (validation.licenseFile !== undefined) {
    // A file this app could not verify offline later is no file: say so now.
    await verifyLicenseFile(licenseFileContext(core), validation.licenseFile, {
      key,
      ...(options.fingerprint === undefined ? {} : { fingerprint: options.fingerprint }),
      now: core.settings.clock(),
    });
    await core.store.keepLicenseFile(id, validation.licenseFile);
  }
  await core.store.keepAnswer(id, kept(exchange));
  return validation;
}

/** The kept answer of this key and fingerprint, verified again, if it is younger than `maxAgeSeconds`. */
export async function keptValidation(
  core: Core,
  key: string,
  fingerprint: string | undefined,
  maxAgeSeconds = core.settings.offlineGraceSeconds,
) {
  const id = await StateStore.idOf(core.settings.productId, key, fingerprint);
  const answer = await core.store.answer(id);
  if (answer === null) return null;
  const raw: RawAnswer = {
    status: answer.status,
    headers: new Headers(answer.headers),
    body: fromBase64(answer.body) ?? new Uint8Array(0),
  };
  const verified = await core.verify(raw, answer.nonce, maxAgeSeconds);
  return toValidation(core, verified, key, fingerprint);
}

export const licenseFileContext = (core: Core) => ({
  keys: core.keys,
  issuer: core.settings.server,
  productId: core.settings.productId,
  maxClockSkewSeconds: core.settings.maxClockSkewSeconds,
});

export const keptLicenseFile = async (core: Core, key: string, fingerprint: string | undefined) =>
  core.store.licenseFile(await StateStore.idOf(core.settings.productId, key, fingerprint));

function kept({ raw, nonce }: Exchange) {
  const headers: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = raw.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: raw.status, headers, body: toBase64(raw.body), nonce };
}

function toValidation(
  core: Core,
  { body, created }: VerifiedAnswer,
  key: string,
  fingerprint: string | undefined,
): Validation {
  const { valid, code, detail, license } = body;
  if (typeof valid !== "boolean" || typeof code !== "string" || (valid && code !== "VALID")) {
    throw notAnAnswer("a validation");
  }
  if (license === undefined || (valid && license === null)) throw notAnAnswer("a validation");
  checkLicense(license, key, core.settings.productId, code);
  if (fingerprint !== undefined && license !== null) {
    // depot names the machine (or null) whenever a fingerprint was sent: without it, the request lost its.
    if (!("machine" in body)) throw aboutSomethingElse("machine");
    if (body.machine !== null) checkMachine(body.machine, { fingerprint });
  }
  const validation: Validation = {
    valid,
    code,
    detail: typeof detail === "string" ? detail : "",
    license: license as License | null,
    signedAt: new Date(created * 1000),
  };
  if (body.ips !== undefined) validation.ips = body.ips as Validation["ips"];
  if (body.machines !== undefined) validation.machines = body.machines as Validation["machines"];
  if (body.machine !== undefined) validation.machine = body.machine as Machine | null;
  if (typeof body.license_file === "string") {
    validation.licenseFile = body.license_file;
    if (typeof body.license_file_expires_at === "string") {
      validation.licenseFileExpiresAt = new Date(body.license_file_expires_at);
    }
  }
  return validation;
}
