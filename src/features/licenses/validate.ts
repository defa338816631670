import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../db/client.ts";
import { type License, licenseIps, licenses } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Forbidden } from "../../errors.ts";
import { toId } from "../../validation/ids.ts";
import type { ApiKeyActor } from "../auth/actor.ts";
import { checkMachine, type MachineCheck } from "../machines/check.ts";
import { toMachineJson } from "../machines/json.ts";
import { licenseStatus, toLicenseJson, type ValidationCode, type ValidationResultJson } from "./json.ts";
import { mayBeLicenseKey, normaliseLicenseKey } from "./keys.ts";
import { licenseByKey } from "./license-by-key.ts";
import { mayActFor } from "./service.ts";

/** A known address refreshes its `last_seen_at` at most this often: validation is read-mostly. */
const SEEN_REFRESH_MS = 60_000;

export interface ValidationRequest {
  key: string;
  productId?: string | number;
  nonce?: string;
  /** The address the check is for: the caller's, or one named in the body… */
  ip: string;
  /** …in which case this API key vouches for it, and must be one that may act for the license. */
  vouchingKey: ApiKeyActor | null;
  /** The machine asking, as activated (features/machines); required by a license with maxMachines. */
  fingerprint?: string;
}

const NOT_ACTIVATED_DETAIL = "This machine is not activated for this license.";

const DETAIL: Record<Exclude<ValidationCode, "NOT_FOUND">, (license: License) => string> = {
  REVOKED: () => "This license has been revoked.",
  EXPIRED: (license) => `This license expired at ${license.expires?.toISOString()}.`,
  PRODUCT_MISMATCH: () => "This license is for another product.",
  FINGERPRINT_REQUIRED: () => "This license is bound to machines: a fingerprint is required.",
  NOT_ACTIVATED: () => NOT_ACTIVATED_DETAIL,
  HEARTBEAT_DEAD: () => "This machine missed its heartbeats; activate it again.",
  // Never answered for a license without an address limit (maxIps null).
  TOO_MANY_IPS: (license) =>
    `This license is already in use from its maximum of ${license.maxIps} IP address${license.maxIps === 1 ? "" : "es"}.`,
  VALID: () => "This license is valid.",
};

/**
 * Checks a key in the order NOT_FOUND, REVOKED, EXPIRED, PRODUCT_MISMATCH, then for a license with
 * `maxMachines` FINGERPRINT_REQUIRED, NOT_ACTIVATED, HEARTBEAT_DEAD, then TOO_MANY_IPS, VALID.
 * One read answers a known address; only a new address takes the license's row lock, so concurrent
 * first validations from many addresses never register more than `maxIps` of them. The machines are
 * read only for a license that counts them or when a fingerprint is given: every other validation
 * makes exactly the reads (and gives exactly the answer) it did before machines.
 */
export async function validateLicenseKey(
  ctx: Pick<AppContext, "db"> & { database: Pick<Database, "rows"> },
  request: ValidationRequest,
): Promise<ValidationResultJson> {
  const key = normaliseLicenseKey(request.key);
  const row = mayBeLicenseKey(key) ? await licenseByKey(ctx.database, key, request.ip) : null;

  let machines: MachineCheck | null = null;
  const answer = (code: ValidationCode, license: License | null, ipCount: number): ValidationResultJson => ({
    valid: code === "VALID",
    code,
    detail: code === "NOT_FOUND" || !license ? "No license has this key." : DETAIL[code](license),
    ts: new Date().toISOString(),
    nonce: request.nonce ?? null,
    license: license ? toLicenseJson(license) : null,
    ips: { count: ipCount, max: license ? license.maxIps : 0 },
    ...(machines === null || !license
      ? {}
      : {
          machines: { count: machines.count, max: license.maxMachines },
          ...(request.fingerprint === undefined
            ? {}
            : { machine: machines.machine ? toMachineJson(machines.machine) : null }),
        }),
  });

  if (!row) return answer("NOT_FOUND", null, 0);
  const { license, lastSeenAt } = row;
  const ipCount = license.ipCount;
  if (license.maxMachines !== null || request.fingerprint !== undefined) {
    machines = await checkMachine(ctx, license, request.fingerprint);
  }
  if (request.vouchingKey && !mayActFor(request.vouchingKey, license)) {
    throw new Forbidden("This API key may not act for this license.");
  }
  const status = licenseStatus(license);
  if (status !== "active") return answer(status === "revoked" ? "REVOKED" : "EXPIRED", license, ipCount);
  if (request.productId !== undefined && toId(request.productId) !== license.productId) {
    return answer("PRODUCT_MISMATCH", license, ipCount);
  }
  if (license.maxMachines !== null) {
    if (request.fingerprint === undefined) return answer("FINGERPRINT_REQUIRED", license, ipCount);
    if (!machines?.machine) return answer("NOT_ACTIVATED", license, ipCount);
    if (!machines.machine.alive) return answer("HEARTBEAT_DEAD", license, ipCount);
  }
  if (lastSeenAt !== null) {
    if (Date.now() - lastSeenAt.getTime() > SEEN_REFRESH_MS) await touchIp(ctx, license.id, request.ip);
    return answer("VALID", license, ipCount);
  }
  const registration = await registerIp(ctx, license.id, request.ip);
  const current = { ...license, maxIps: registration.maxIps };
  return answer(registration.registered ? "VALID" : "TOO_MANY_IPS", current, registration.count);
}

/**
 * The answer once the machine `answer` names is gone (deactivated since it was read): its fingerprint
 * names no machine, which a license that counts machines answers NOT_ACTIVATED.
 */
export function withoutMachine(answer: ValidationResultJson): ValidationResultJson {
  const counted = answer.license?.maxMachines !== undefined && answer.license.maxMachines !== null;
  if (!counted) return { ...answer, machine: null };
  return { ...answer, valid: false, code: "NOT_ACTIVATED", detail: NOT_ACTIVATED_DETAIL, machine: null };
}

async function touchIp(ctx: Pick<AppContext, "db">, licenseId: string, ip: string) {
  await ctx.db
    .update(licenseIps)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(licenseIps.licenseId, licenseId), eq(licenseIps.ip, ip)));
}

/**
 * Registers `ip` while fewer than `max_ips` are registered (always, for a license without a limit:
 * its addresses are still listed). The row lock is taken by its own statement
 * first: under READ COMMITTED a count in the same statement would read a snapshot from before the wait.
 */
function registerIp(ctx: Pick<AppContext, "db">, licenseId: string, ip: string) {
  return withTransaction(ctx, async (tx) => {
    const [locked] = await tx.db
      .select({ maxIps: licenses.maxIps })
      .from(licenses)
      .where(eq(licenses.id, licenseId))
      .for("update");
    if (!locked) return { registered: false, count: 0, maxIps: 0 };
    const { maxIps } = locked;
    const [state] = await tx.db
      .select({
        count: sql<number>`count(*)::int`,
        known: sql<boolean>`coalesce(bool_or(${licenseIps.ip} = ${ip}), false)`,
      })
      .from(licenseIps)
      .where(eq(licenseIps.licenseId, licenseId));
    const count = state?.count ?? 0;
    // Another request registered this same address while we waited for the lock.
    if (state?.known) return { registered: true, count, maxIps };
    if (maxIps !== null && count >= maxIps) return { registered: false, count, maxIps };
    await tx.db.insert(licenseIps).values({ licenseId, ip });
    return { registered: true, count: count + 1, maxIps };
  });
}
