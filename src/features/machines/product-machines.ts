import type { AppContext } from "../../context.ts";
import type { Actor } from "../auth/actor.ts";
import { fileTtlCeiling, ttlWithin } from "../licenses/files.ts";
import { managedScope, type ProductLicensePath } from "../licenses/product-licenses.ts";
import { LICENSE_FILE_TTL } from "../licenses/schemas.ts";
import { findLicense } from "../licenses/service.ts";
import type { MachineRow } from "./json.ts";
import { decodeOfflineRequest } from "./offline.ts";
import { type Activation, activateOfflineFor, deactivateMachineOf, machinesOf } from "./service.ts";

// A license's machines as its product's vendor supports them from the dashboard
// (/api/products/{product}/licenses/{license}/machines): the same machine service as the license
// API's and the owner's, with the product as the scope (who may: licenses/product-licenses.ts).

/** One machine of a product's license, as its path names them. */
export interface ProductMachinePath extends ProductLicensePath {
  machine: string;
}

/** The license of a product `actor` may manage, or the 403/404 its licenses answer. */
async function managedLicense(ctx: Pick<AppContext, "db">, actor: Actor, at: ProductLicensePath) {
  return findLicense(ctx, await managedScope(ctx, actor, at.product), at.license);
}

/**
 * The license's machines, oldest first, alive or not, and the longest an offline activation's file may
 * last for it (its ceiling: the license's, else its product's, else a week when seats are counted,
 * else a year).
 */
export async function productLicenseMachines(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  at: ProductLicensePath,
): Promise<{ rows: MachineRow[]; fileTtlMax: number }> {
  const license = await managedLicense(ctx, actor, at);
  const ceiling = await fileTtlCeiling(ctx, license);
  return { rows: await machinesOf(ctx, license), fileTtlMax: ttlWithin(LICENSE_FILE_TTL.max, ceiling) };
}

/**
 * The vendor frees a machine's seat. A machine whose license file is still valid keeps it (409
 * MACHINE_FILE_VALID) unless `force`d, which revokes nothing: the file works offline until it expires.
 */
export async function deactivateProductMachine(
  ctx: Pick<AppContext, "db" | "usage">,
  actor: Actor,
  at: ProductMachinePath,
  force: boolean,
) {
  await deactivateMachineOf(ctx, await managedLicense(ctx, actor, at), at.machine, force);
}

/**
 * The vendor exchanges a customer's air-gapped activation request (base64) for its machine-bound
 * license file, lasting `ttl` seconds (30 days when absent) cut to the license's ceiling.
 */
export async function activateProductOffline(
  ctx: Pick<AppContext, "db" | "config" | "signing" | "usage">,
  actor: Actor,
  at: ProductLicensePath,
  body: { request: string; ttl?: number },
): Promise<Activation> {
  const license = await managedLicense(ctx, actor, at);
  return activateOfflineFor(ctx, license, decodeOfflineRequest(body.request), body.ttl);
}
