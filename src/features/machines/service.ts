import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { dailyLimitWait, dayAgo } from "../../daily-limit.ts";
import { type License, licenses, machineActivations, machines } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Invalid, NotFound } from "../../errors.ts";
import { isUuid } from "../../validation/ids.ts";
import type { Actor, ApiKeyActor } from "../auth/actor.ts";
import { licenseStatus } from "../licenses/json.ts";
import { mayBeLicenseKey, normaliseLicenseKey } from "../licenses/keys.ts";
import { findLicense, type LicenseScope, mayActFor } from "../licenses/service.ts";
import { aliveSql } from "./alive.ts";
import type { MachineRow } from "./json.ts";
import { MachineRefused } from "./refusal.ts";

// Machines: activating a fingerprint on a license, keeping it alive, deactivating it, listing them.
// The license key is the credential of shipped software, as for validate.

export interface ActivationRequest {
  key: string;
  fingerprint: string;
  name?: string;
  platform?: string;
  hostname?: string;
}

export interface Activation extends MachineRow {
  license: License;
  /** A new machine (201), or the fingerprint was already an alive machine of the license (200). */
  created: boolean;
}

/**
 * Activates `fingerprint` on the license whose key is given. The license row is locked first, by its
 * own statement, so concurrent activations are counted one after another and never exceed
 * `maxMachines`; the alive machines are counted at that moment. A fingerprint already alive is
 * refreshed (an activation is also a heartbeat); a dead one is replaced by a new machine.
 */
export function activateMachine(
  ctx: Pick<AppContext, "db" | "config">,
  request: ActivationRequest,
): Promise<Activation> {
  return withTransaction(ctx, async (tx) => {
    const license = await lockLicenseByKey(tx, request.key);
    if (!license) throw new MachineRefused(404, "NOT_FOUND", "No license has this key.");
    assertUsable(license);
    const alive = aliveSql(license.heartbeatSeconds);
    const rows: MachineRow[] = await tx.db
      .select({ machine: machines, alive })
      .from(machines)
      .where(
        and(eq(machines.licenseId, license.id), or(alive, eq(machines.fingerprint, request.fingerprint))),
      );
    const details = {
      name: request.name ?? null,
      platform: request.platform ?? null,
      hostname: request.hostname ?? null,
    };
    const existing = rows.find((row) => row.machine.fingerprint === request.fingerprint);
    if (existing?.alive) {
      const [machine] = await tx.db
        .update(machines)
        .set({ ...definedOnly(request), lastHeartbeatAt: sql`clock_timestamp()` })
        .where(eq(machines.id, existing.machine.id))
        .returning();
      return { machine: machine ?? existing.machine, alive: true, license, created: false };
    }
    const count = rows.filter((row) => row.alive).length;
    if (license.maxMachines !== null && count >= license.maxMachines) {
      throw new MachineRefused(
        409,
        "TOO_MANY_MACHINES",
        `This license is already active on its maximum of ${license.maxMachines} machine${license.maxMachines === 1 ? "" : "s"}.`,
      );
    }
    await assertActivationsLeft(tx, license.id, ctx.config.machineActivationsPerDay);
    if (existing) await tx.db.delete(machines).where(eq(machines.id, existing.machine.id));
    const [machine] = await tx.db
      .insert(machines)
      .values({
        id: Bun.randomUUIDv7(),
        licenseId: license.id,
        fingerprint: request.fingerprint,
        ...details,
        lastHeartbeatAt: sql`clock_timestamp()`,
      })
      .returning();
    if (!machine) throw new Error("machine insert returned nothing");
    await tx.db.insert(machineActivations).values({ licenseId: license.id });
    return { machine, alive: true, license, created: true };
  });
}

/** The optional details a request gave, to update without erasing the ones it left out. */
const definedOnly = (request: ActivationRequest) =>
  Object.fromEntries(
    Object.entries({ name: request.name, platform: request.platform, hostname: request.hostname }).filter(
      ([, value]) => value !== undefined,
    ),
  );

/**
 * At most `perDay` new activations in any 24 hours, counted under the license's row lock; the wait
 * (Retry-After) is until the oldest of them leaves the window.
 */
async function assertActivationsLeft(ctx: Pick<AppContext, "db">, licenseId: string, perDay: number) {
  const recent = await ctx.db
    .select({ at: machineActivations.createdAt })
    .from(machineActivations)
    .where(and(eq(machineActivations.licenseId, licenseId), gt(machineActivations.createdAt, dayAgo())))
    .orderBy(asc(machineActivations.createdAt))
    .limit(perDay);
  const retryAfter = dailyLimitWait(recent, perDay);
  if (retryAfter === null) return;
  throw new MachineRefused(
    429,
    "TOO_MANY_ACTIVATIONS",
    `This license has made its ${perDay} activations of the last 24 hours; try again in ${retryAfter} seconds.`,
    { "retry-after": String(retryAfter) },
  );
}

/**
 * A heartbeat from machine `id`, with its license's key: the machine stays alive for another interval.
 * A machine of another license is as unknown as one that does not exist (404); a dead one is 410,
 * to be activated again. The license row is locked as for an activation, so a machine that an
 * activation has just counted as dead cannot come back and overfill the license.
 */
export function heartbeat(ctx: Pick<AppContext, "db">, id: string, key: string): Promise<MachineRow> {
  return withTransaction(ctx, async (tx) => {
    const license = await lockLicenseByKey(tx, key);
    const found = license ? await machineOf(tx, license, id) : undefined;
    if (!license || !found) throw new NotFound("Machine");
    assertUsable(license);
    if (!found.alive) {
      throw new MachineRefused(
        410,
        "HEARTBEAT_DEAD",
        "This machine missed its heartbeats; activate it again.",
      );
    }
    const [machine] = await tx.db
      .update(machines)
      .set({ lastHeartbeatAt: sql`clock_timestamp()` })
      .where(eq(machines.id, found.machine.id))
      .returning();
    return { machine: machine ?? found.machine, alive: true };
  });
}

/** Who deactivates a machine: the software itself with its license key, or an API key for the license. */
export type MachineCaller = { licenseKey: string } | { apiKey: ApiKeyActor };

/** Deactivates machine `id`, freeing its seat; 404 unless the caller's license (or scope) holds it. */
export async function deactivateMachine(ctx: Pick<AppContext, "db">, caller: MachineCaller, id: string) {
  if (!isUuid(id)) throw new NotFound("Machine");
  const [row] = await ctx.db
    .select({ machineId: machines.id, license: licenses })
    .from(machines)
    .innerJoin(licenses, eq(licenses.id, machines.licenseId))
    .where(eq(machines.id, id));
  const allowed =
    row !== undefined &&
    ("licenseKey" in caller
      ? row.license.key === normaliseLicenseKey(caller.licenseKey)
      : mayActFor(caller.apiKey, row.license));
  if (!row || !allowed) throw new NotFound("Machine");
  await ctx.db.delete(machines).where(eq(machines.id, row.machineId));
}

/** The license's machines, oldest first, alive or not, for a scope that may act for it. */
export async function listMachines(ctx: Pick<AppContext, "db">, scope: LicenseScope, licenseId: string) {
  return machinesOf(ctx, await findLicense(ctx, scope, licenseId));
}

/** The machines of one of the user's own licenses (someone else's is a 404, as for the admin). */
export async function listOwnMachines(ctx: Pick<AppContext, "db">, actor: Actor, licenseId: string) {
  return machinesOf(ctx, await ownLicense(ctx, actor, licenseId));
}

/** One machine of a license, as its path names them: /api/licenses/{id}/machines/{machine}. */
export interface OwnMachinePath {
  id: string;
  machine: string;
}

/** The owner frees a seat from the dashboard: deactivates one machine of their own license. */
export async function deactivateOwnMachine(ctx: Pick<AppContext, "db">, actor: Actor, at: OwnMachinePath) {
  const license = await ownLicense(ctx, actor, at.id);
  if (!isUuid(at.machine)) throw new NotFound("Machine");
  const deleted = await ctx.db
    .delete(machines)
    .where(and(eq(machines.licenseId, license.id), eq(machines.id, at.machine)))
    .returning({ id: machines.id });
  if (deleted.length === 0) throw new NotFound("Machine");
}

/**
 * The owner exchanges an air-gapped machine's activation request for its license file: the request
 * must be for this license (its key), and activates like any other (seats, the daily bound).
 */
export async function activateOwnOffline(
  ctx: Pick<AppContext, "db" | "config">,
  actor: Actor,
  licenseId: string,
  request: ActivationRequest,
): Promise<Activation> {
  const license = await ownLicense(ctx, actor, licenseId);
  if (normaliseLicenseKey(request.key) !== license.key) {
    throw new Invalid({ request: ["The activation request is for another license."] });
  }
  return activateMachine(ctx, request);
}

/** One of the user's own licenses, or the same 404 as a license that does not exist. */
export async function ownLicense(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  licenseId: string,
): Promise<License> {
  if (!isUuid(licenseId)) throw new NotFound("License");
  const [license] = await ctx.db.select().from(licenses).where(eq(licenses.id, licenseId));
  if (!license || license.userId !== actor.user.id) throw new NotFound("License");
  return license;
}

export function machinesOf(ctx: Pick<AppContext, "db">, license: License): Promise<MachineRow[]> {
  return ctx.db
    .select({ machine: machines, alive: aliveSql(license.heartbeatSeconds) })
    .from(machines)
    .where(eq(machines.licenseId, license.id))
    .orderBy(asc(machines.createdAt), asc(machines.id));
}

/** The license with this key, its row locked until the transaction ends. */
async function lockLicenseByKey(ctx: Pick<AppContext, "db">, rawKey: string): Promise<License | undefined> {
  const key = normaliseLicenseKey(rawKey);
  if (!mayBeLicenseKey(key)) return undefined;
  const [license] = await ctx.db.select().from(licenses).where(eq(licenses.key, key)).for("update");
  return license;
}

async function machineOf(ctx: Pick<AppContext, "db">, license: License, id: string) {
  const [row] = await ctx.db
    .select({ machine: machines, alive: aliveSql(license.heartbeatSeconds) })
    .from(machines)
    .where(and(eq(machines.id, id), eq(machines.licenseId, license.id)));
  return row;
}

/** A revoked or expired license activates and keeps nothing alive: 403 with the validation's code. */
function assertUsable(license: License) {
  const status = licenseStatus(license);
  if (status === "revoked") throw new MachineRefused(403, "REVOKED", "This license has been revoked.");
  if (status === "expired") {
    throw new MachineRefused(403, "EXPIRED", `This license expired at ${license.expires?.toISOString()}.`);
  }
}
