import { and, asc, eq, gt, inArray, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { dailyLimitWait, dayAgo } from "../../daily-limit.ts";
import { type License, licenses, machineActivations, machines } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Invalid, NotFound } from "../../errors.ts";
import { isUuid } from "../../validation/ids.ts";
import type { Actor, ApiKeyActor } from "../auth/actor.ts";
import { fileTtlCeiling, issueMachineFile, type LicenseFile, ttlWithin } from "../licenses/files.ts";
import { licenseStatus, toLicenseJson } from "../licenses/json.ts";
import { mayBeLicenseKey, normaliseLicenseKey } from "../licenses/keys.ts";
import { findLicense, type LicenseScope, mayActFor } from "../licenses/service.ts";
import { aliveSql } from "./alive.ts";
import { type MachineRow, toMachineJson } from "./json.ts";
import { MachineRefused, machineNotFound } from "./refusal.ts";
import { fileValidSql, holdsSeatSql } from "./seats.ts";

// Machines: activating a fingerprint on a license, keeping it alive, deactivating it, listing them.
// The license key is the credential of shipped software, as for validate. Everything that makes,
// refreshes or deletes a machine holds its license's row lock, so these happen one after another per
// license; a checkout binds its file without it, by an UPDATE that a deletion's own condition sees.

export interface ActivationRequest {
  key: string;
  fingerprint: string;
  name?: string;
  platform?: string;
  hostname?: string;
  /** An offline activation: the answer carries a license file bound to the machine… */
  offline?: boolean;
  /** …lasting this many seconds (30 days when absent), cut to the license's ceiling. */
  ttl?: number;
}

export interface Activation extends MachineRow {
  license: License;
  /** A new machine (201), or the fingerprint was already an alive machine of the license (200). */
  created: boolean;
  /** Offline activations: the license file bound to the machine (its expiry kept on the machine). */
  file: LicenseFile | null;
}

/**
 * Activates `fingerprint` on the license whose key is given. The license row is locked first, by its
 * own statement, so concurrent activations are counted one after another and never exceed
 * `maxMachines`; the seats held are counted at that moment (alive machines, and machines whose
 * license file is still valid: seats.ts). A fingerprint already alive is refreshed (an activation is
 * also a heartbeat); a dead one is replaced by a new machine, which keeps its file's seat.
 */
export async function activateMachine(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  request: ActivationRequest,
): Promise<Activation> {
  const activation = await activateInTransaction(ctx, request);
  // Counted once committed; a refreshed fingerprint is a heartbeat, not an activation.
  if (activation.created) {
    ctx.usage.add({
      productId: activation.license.productId,
      series: "activations",
      licenseId: activation.license.id,
    });
  }
  return activation;
}

function activateInTransaction(
  ctx: Pick<AppContext, "db" | "config" | "signing">,
  request: ActivationRequest,
): Promise<Activation> {
  return withTransaction(ctx, async (tx) => {
    const license = await lockLicenseByKey(tx, request.key);
    if (!license) throw new MachineRefused(404, "NOT_FOUND", "No license has this key.");
    assertUsable(license);
    const { row, created } = await activateLocked(tx, license, request);
    if (!request.offline) return { ...row, license, created, file: null };
    const ttl = ttlWithin(request.ttl, await fileTtlCeiling(tx, license));
    const bound = await issueMachineFile(tx, toLicenseJson(license), toMachineJson(row), ttl);
    if (!bound) throw machineGone();
    return { machine: bound.machine, alive: true, license, created, file: bound.file };
  });
}

/** The machine an activation refreshes or makes, the license's row lock held. */
async function activateLocked(
  tx: Pick<AppContext, "db" | "config">,
  license: License,
  request: ActivationRequest,
): Promise<{ row: MachineRow; created: boolean }> {
  const alive = aliveSql(license.heartbeatSeconds);
  const holdsSeat = holdsSeatSql(license.heartbeatSeconds);
  const rows = await tx.db
    .select({ machine: machines, alive, holdsSeat })
    .from(machines)
    .where(
      and(eq(machines.licenseId, license.id), or(holdsSeat, eq(machines.fingerprint, request.fingerprint))),
    );
  const existing = rows.find((row) => row.machine.fingerprint === request.fingerprint);
  if (existing?.alive) {
    const [machine] = await tx.db
      .update(machines)
      .set({ ...definedOnly(request), lastHeartbeatAt: sql`clock_timestamp()` })
      .where(eq(machines.id, existing.machine.id))
      .returning();
    // Nothing matched: it was deleted after it was read, and the answer must not be made of that read.
    if (!machine) throw machineGone();
    return { row: { machine, alive: true }, created: false };
  }
  // The fingerprint's own dead machine is replaced, not added: its seat (if its file holds one) is this one.
  const count = rows.filter((row) => row.holdsSeat && row !== existing).length;
  if (license.maxMachines !== null && count >= license.maxMachines) {
    throw new MachineRefused(
      409,
      "TOO_MANY_MACHINES",
      `This license is already active on its maximum of ${license.maxMachines} machine${license.maxMachines === 1 ? "" : "s"}.`,
    );
  }
  await assertActivationsLeft(tx, license.id, tx.config.machineActivationsPerDay);
  if (existing) await tx.db.delete(machines).where(eq(machines.id, existing.machine.id));
  const [machine] = await tx.db
    .insert(machines)
    .values({
      id: Bun.randomUUIDv7(),
      licenseId: license.id,
      fingerprint: request.fingerprint,
      name: request.name ?? null,
      platform: request.platform ?? null,
      hostname: request.hostname ?? null,
      lastHeartbeatAt: sql`clock_timestamp()`,
      // A file issued to the machine it replaces is still out there, and still holds this seat.
      fileExpiresAt: existing?.machine.fileExpiresAt ?? null,
    })
    .returning();
  if (!machine) throw new Error("machine insert returned nothing");
  await tx.db.insert(machineActivations).values({ licenseId: license.id });
  return { row: { machine, alive: true }, created: true };
}

/** A machine deleted between the read and the write of an activation or heartbeat. */
const machineGone = () =>
  new MachineRefused(404, "NOT_FOUND", "This machine was deactivated meanwhile; activate it again.");

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
    const found = license && isUuid(id) ? await machineOf(tx, license, id.toLowerCase()) : undefined;
    if (!license || !found) throw machineNotFound();
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
    if (!machine) throw machineGone();
    return { machine, alive: true };
  });
}

/** Who deactivates a machine: the software itself with its license key, or an API key for the license. */
export type MachineCaller = { licenseKey: string } | { apiKey: ApiKeyActor };

/**
 * Deactivates machine `id`, freeing its seat; 404 unless the caller's license (or scope) holds it. A
 * machine whose license file is still valid keeps its seat (409 MACHINE_FILE_VALID) unless an API
 * key `force`s it, which frees the seat but revokes nothing: the file works offline until it expires.
 */
export async function deactivateMachine(
  ctx: Pick<AppContext, "db" | "usage">,
  caller: MachineCaller,
  id: string,
  force = false,
) {
  if (force && "licenseKey" in caller) {
    throw new Invalid({ force: ["The force field is only accepted with an x-api-key."] });
  }
  if (!isUuid(id)) throw new NotFound("Machine");
  const machineId = id.toLowerCase();
  const deactivated = await withTransaction(ctx, async (tx) => {
    const license = await lockLicenseOfMachine(tx, machineId);
    const allowed =
      license !== undefined &&
      ("licenseKey" in caller
        ? license.key === normaliseLicenseKey(caller.licenseKey)
        : mayActFor(caller.apiKey, license));
    if (!license || !allowed) throw new NotFound("Machine");
    await deleteMachine(tx, license.id, machineId, force);
    return license;
  });
  countDeactivation(ctx, deactivated);
}

/** A deactivation, counted once committed. */
const countDeactivation = (ctx: Pick<AppContext, "usage">, license: License) =>
  ctx.usage.add({ productId: license.productId, series: "deactivations", licenseId: license.id });

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
export async function deactivateOwnMachine(
  ctx: Pick<AppContext, "db" | "usage">,
  actor: Actor,
  at: OwnMachinePath,
) {
  await deactivateMachineOf(ctx, await ownLicense(ctx, actor, at.id), at.machine, false);
}

/**
 * Deactivates machine `machineId` of `license` (one the caller may act for), under the license's row
 * lock: 404 when the license has no such machine, 409 MACHINE_FILE_VALID while its file holds the
 * seat unless `force`d.
 */
export async function deactivateMachineOf(
  ctx: Pick<AppContext, "db" | "usage">,
  license: License,
  machineId: string,
  force: boolean,
) {
  if (!isUuid(machineId)) throw new NotFound("Machine");
  await withTransaction(ctx, async (tx) => {
    await tx.db.select({ id: licenses.id }).from(licenses).where(eq(licenses.id, license.id)).for("update");
    await deleteMachine(tx, license.id, machineId.toLowerCase(), force);
  });
  countDeactivation(ctx, license);
}

/**
 * Deletes machine `machineId` of the license whose row lock is held; 404 when it is not there. The
 * DELETE itself asks that no valid file holds the seat (unless forced): a checkout that binds a file
 * to the machine meanwhile (without the license lock: licenses/files.ts) either comes first and is
 * seen here, or finds the machine gone and issues nothing.
 */
async function deleteMachine(
  ctx: Pick<AppContext, "db">,
  licenseId: string,
  machineId: string,
  force: boolean,
) {
  const mine = and(eq(machines.id, machineId), eq(machines.licenseId, licenseId));
  const deleted = await ctx.db
    .delete(machines)
    .where(force ? mine : and(mine, sql`NOT ${fileValidSql}`))
    .returning({ id: machines.id });
  if (deleted.length > 0) return;
  const [held] = await ctx.db.select({ fileExpiresAt: machines.fileExpiresAt }).from(machines).where(mine);
  if (!held?.fileExpiresAt) throw new NotFound("Machine");
  throw new MachineRefused(
    409,
    "MACHINE_FILE_VALID",
    `This machine holds its seat until its license file expires at ${held.fileExpiresAt.toISOString()}.`,
    {},
    { fileExpiresAt: held.fileExpiresAt.toISOString() },
  );
}

/**
 * The owner exchanges an air-gapped machine's activation request for its license file: the request
 * must be for this license (its key), and activates like any other (seats, the daily bound), with the
 * file's default lifetime cut to the license's ceiling.
 */
export async function activateOwnOffline(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  actor: Actor,
  licenseId: string,
  request: ActivationRequest,
): Promise<Activation> {
  return activateOfflineFor(ctx, await ownLicense(ctx, actor, licenseId), request);
}

/**
 * An offline activation on `license` (one the caller may act for): the request must carry its key,
 * and the file lasts `ttl` seconds (30 days when absent), cut to the license's ceiling.
 */
export function activateOfflineFor(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  license: License,
  request: ActivationRequest,
  ttl?: number,
): Promise<Activation> {
  if (normaliseLicenseKey(request.key) !== license.key) {
    throw new Invalid({ request: ["The activation request is for another license."] });
  }
  return activateMachine(ctx, { ...request, offline: true, ttl });
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

/** The license of machine `id`, its row locked until the transaction ends (undefined: no such machine). */
async function lockLicenseOfMachine(ctx: Pick<AppContext, "db">, machineId: string) {
  const [license] = await ctx.db
    .select()
    .from(licenses)
    .where(
      inArray(
        licenses.id,
        ctx.db.select({ id: machines.licenseId }).from(machines).where(eq(machines.id, machineId)),
      ),
    )
    .for("update");
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
