import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import { AppError } from "../../errors.ts";
import { assertValid } from "../../validation/messages.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { leaseSeconds } from "../machines/alive.ts";
import type { MachineJson } from "../machines/json.ts";
import { compactJws } from "../signing/jws.ts";
import { type LicenseJson, licenseStatus, toLicenseJson, type ValidationResultJson } from "./json.ts";
import { Ttl } from "./schemas.ts";
import { findLicense } from "./service.ts";

/** How long a license file lasts when the request does not say, and the range a request may ask for. */
export const LICENSE_FILE_TTL = { default: 30 * 86_400, min: 3_600, max: 365 * 86_400 } as const;
export const LICENSE_FILE_TYPE = "depot-license+jwt";
const ARMOUR = "DEPOT LICENSE FILE";

/** The machine a license file is bound to: its claims carry the fingerprint; a floating seat's lease ends it. */
export interface MachineBinding {
  fingerprint: string;
  machineId: string;
  /** Floating licenses: when the machine dies without a heartbeat; the file ends then at the latest. */
  leaseEndsAt: Date | null;
}

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
  machine: MachineBinding | null = null,
): LicenseFile {
  const iat = Math.floor(now.getTime() / 1000);
  const untilTtl = iat + ttlSeconds;
  const untilLicense = license.expires ? Math.floor(Date.parse(license.expires) / 1000) : untilTtl;
  const untilLease = machine?.leaseEndsAt ? Math.floor(machine.leaseEndsAt.getTime() / 1000) : untilTtl;
  const exp = Math.min(untilTtl, untilLicense, untilLease);
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
    ...(machine ? { fingerprint: machine.fingerprint, machine_id: machine.machineId } : {}),
  });
  return { text: armour(jws), expiresAt: new Date(exp * 1000) };
}

/**
 * A checkout's answer: the validation's, and when it is valid a license file of `ttlSeconds`. Asked
 * with a fingerprint, the file is bound to that machine, and issued only while the machine is alive.
 */
export function checkoutAnswer(
  ctx: Pick<AppContext, "config" | "signing">,
  answer: ValidationResultJson,
  ttlSeconds?: number,
) {
  if (!answer.valid || !answer.license) return answer;
  let binding: MachineBinding | null = null;
  if (answer.machine !== undefined) {
    if (!answer.machine?.alive) return answer;
    binding = machineBinding(answer.license, answer.machine);
  }
  const file = issueLicenseFile(ctx, answer.license, ttlSeconds, new Date(), binding);
  return { ...answer, license_file: file.text, license_file_expires_at: file.expiresAt.toISOString() };
}

/** The binding of a file to an alive machine; a floating license's file lasts no longer than its lease. */
export function machineBinding(license: LicenseJson, machine: MachineJson): MachineBinding {
  const floating = license.floating === true && typeof license.heartbeatSeconds === "number";
  return {
    fingerprint: machine.fingerprint,
    machineId: machine.id,
    leaseEndsAt: floating
      ? new Date(
          Date.parse(machine.lastHeartbeatAt) + leaseSeconds(license.heartbeatSeconds as number) * 1000,
        )
      : null,
  };
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
  ttl: string | undefined,
): Promise<{ license: LicenseJson; file: LicenseFile }> {
  const ttlSeconds = ttlFromQuery(ttl);
  const license = await findLicense(ctx, apiKey, id);
  const status = licenseStatus(license);
  if (status === "revoked")
    throw new AppError(409, "This license has been revoked; it gets no license file.");
  if (status === "expired") throw new AppError(409, "This license has expired; it gets no license file.");
  const json = toLicenseJson(license);
  return { license: json, file: issueLicenseFile(ctx, json, ttlSeconds) };
}

const TtlQuery = t.Object({ ttl: Ttl });

/** A license file as a download: its text, with the headers that name it. */
export function asAttachment(
  headers: Record<string, unknown>,
  { license, file }: { license: LicenseJson; file: LicenseFile },
) {
  headers["content-type"] = "application/x-pem-file";
  headers["content-disposition"] = `attachment; filename="depot-license-${license.id}.lic"`;
  return file.text;
}

/** `?ttl=` as seconds: digits within the range, the default when absent; anything else is a 422. */
function ttlFromQuery(raw: string | undefined): number {
  if (raw === undefined) return LICENSE_FILE_TTL.default;
  const query = { ttl: /^\d{1,12}$/.test(raw) ? Number(raw) : raw };
  assertValid(TtlQuery, query);
  return query.ttl;
}
