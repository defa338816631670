import { eq } from "drizzle-orm";
import { t } from "elysia";
import type { AppContext } from "../../context.ts";
import { type License, type Machine, products } from "../../db/schema/index.ts";
import { AppError } from "../../errors.ts";
import { assertValid } from "../../validation/messages.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { leaseSeconds } from "../machines/alive.ts";
import { type MachineJson, toMachineJson } from "../machines/json.ts";
import { recordFileExpiry } from "../machines/seats.ts";
import { compactJws } from "../signing/jws.ts";
import { type LicenseJson, licenseStatus, toLicenseJson, type ValidationResultJson } from "./json.ts";
import { LICENSE_FILE_TTL, Ttl } from "./schemas.ts";
import { findLicense } from "./service.ts";
import { withoutMachine } from "./validate.ts";

/** A node-locked license's files last at most a week, unless its vendor set another ceiling. */
export const NODE_LOCKED_FILE_TTL_MAX = 7 * 86_400;
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

/** What decides a license's file ceiling: its own setting, its product, and whether it counts machines. */
type CeilingSettings = Pick<License, "machineFileTtlMax" | "maxMachines" | "productId">;

/**
 * The longest a license file of `license` may last, in seconds: the license's `machineFileTtlMax`,
 * else its product's default, else a week for a node-locked license (`maxMachines` set); null for a
 * license without machines and without either setting, whose files keep the plain range (a year).
 */
export async function fileTtlCeiling(
  ctx: Pick<AppContext, "db">,
  license: CeilingSettings,
): Promise<number | null> {
  if (license.machineFileTtlMax !== null) return license.machineFileTtlMax;
  const [product] = await ctx.db
    .select({ machineFileTtlMax: products.machineFileTtlMax })
    .from(products)
    .where(eq(products.id, license.productId));
  if (product && product.machineFileTtlMax !== null) return product.machineFileTtlMax;
  return license.maxMachines === null ? null : NODE_LOCKED_FILE_TTL_MAX;
}

/**
 * A file's lifetime: the `ttl` asked for (30 days when none) cut to the license's ceiling. A longer
 * one is clamped rather than refused, as the license's expiry and a floating lease already clamp it:
 * the answer's `license_file_expires_at` (the file's `exp`) says what it got.
 */
export const ttlWithin = (ttl: number | undefined, ceiling: number | null) =>
  Math.min(ttl ?? LICENSE_FILE_TTL.default, ceiling ?? LICENSE_FILE_TTL.max);

/** The settings of a license as the license API answers it (a validation's `license`). */
const ceilingSettingsOf = (license: LicenseJson): CeilingSettings => ({
  machineFileTtlMax: license.machineFileTtlMax ?? null,
  maxMachines: license.maxMachines ?? null,
  productId: Number(license.productId),
});

/**
 * The license file bound to `machine` (`ttlSeconds` long at most, its lease at most for a floating
 * seat), its expiry kept on the machine, which holds its seat until then (machines/seats.ts). A
 * machine that is no longer there, or no longer alive, gets none: undefined.
 */
export async function issueMachineFile(
  ctx: Pick<AppContext, "db" | "config" | "signing">,
  license: LicenseJson,
  machine: MachineJson,
  ttlSeconds: number,
): Promise<{ file: LicenseFile; machine: Machine } | undefined> {
  const file = issueLicenseFile(ctx, license, ttlSeconds, new Date(), machineBinding(license, machine));
  const at = {
    licenseId: license.id,
    machineId: machine.id,
    heartbeatSeconds: license.heartbeatSeconds ?? null,
  };
  const recorded = await recordFileExpiry(ctx, at, file.expiresAt);
  return recorded && { file, machine: recorded };
}

/**
 * A checkout's answer: the validation's, and when it is valid a license file of `ttlSeconds` (within
 * the license's ceiling). Asked with a fingerprint, the file is bound to that machine, and issued only
 * while the machine is alive; one deactivated since the validation read it is not activated any more.
 */
export async function checkoutAnswer(
  ctx: Pick<AppContext, "db" | "config" | "signing">,
  answer: ValidationResultJson,
  ttlSeconds?: number,
) {
  if (!answer.valid || !answer.license) return answer;
  const ttl = ttlWithin(ttlSeconds, await fileTtlCeiling(ctx, ceilingSettingsOf(answer.license)));
  const withFile = <T>(answered: T, file: LicenseFile) => ({
    ...answered,
    license_file: file.text,
    license_file_expires_at: file.expiresAt.toISOString(),
  });
  if (answer.machine === undefined) return withFile(answer, issueLicenseFile(ctx, answer.license, ttl));
  if (!answer.machine?.alive) return answer;
  const bound = await issueMachineFile(ctx, answer.license, answer.machine, ttl);
  if (!bound) return withoutMachine(answer);
  return withFile({ ...answer, machine: toMachineJson({ machine: bound.machine, alive: true }) }, bound.file);
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
  const requested = ttlFromQuery(ttl);
  const license = await findLicense(ctx, apiKey, id);
  const status = licenseStatus(license);
  if (status === "revoked")
    throw new AppError(409, "This license has been revoked; it gets no license file.");
  if (status === "expired") throw new AppError(409, "This license has expired; it gets no license file.");
  const json = toLicenseJson(license);
  return {
    license: json,
    file: issueLicenseFile(ctx, json, ttlWithin(requested, await fileTtlCeiling(ctx, license))),
  };
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

/** `?ttl=` as seconds: digits within the range, undefined when absent; anything else is a 422. */
function ttlFromQuery(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const query = { ttl: /^\d{1,12}$/.test(raw) ? Number(raw) : raw };
  assertValid(TtlQuery, query);
  return query.ttl;
}
