import { and, asc, count, desc, eq, gt, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { dailyLimitWait, dayAgo } from "../../daily-limit.ts";
import {
  type License,
  type LicenseIp,
  licenseIpResets,
  licenseIps,
  licenses,
  machines,
  products,
} from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { NotFound, TooManyAttempts } from "../../errors.ts";
import { type PageRequest, pageRequest } from "../../page-request.ts";
import { isUuid } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import { aliveSql } from "../machines/alive.ts";
import type { MachineRow } from "../machines/json.ts";
import { forgetIps } from "./service.ts";

// A customer's own licenses (/api/licenses): what they hold, and the reset of a license's addresses
// after they move a server.

const RESETS_PER_DAY = 3;

export interface OwnLicenseRow {
  license: License;
  product: { id: number; name: string };
  ips: LicenseIp[];
  ipResetsLeft: number;
  machines: MachineRow[];
}

/** The page of the user's own licenses that `query` asks for, with the page (for `simplePage`). */
export async function ownLicensePage(
  ctx: Pick<AppContext, "db">,
  userId: number,
  query: { page?: string; per_page?: string },
): Promise<{ rows: OwnLicenseRow[]; page: PageRequest }> {
  const page = pageRequest(query);
  return { rows: await listOwnLicenses(ctx, userId, page), page };
}

/**
 * The user's own licenses, newest first, with their product, addresses and resets left; one more row
 * than a page, for `simplePage`. Every license the user owns is listed, whatever became of its
 * product: hidden, disabled or soft-deleted, the product keeps its id and name here, because the
 * license is the owner's own record of what they were sold (and a holder may still download from
 * such a product, downloads/access.ts). Other users' licenses never appear.
 */
export async function listOwnLicenses(
  ctx: Pick<AppContext, "db">,
  userId: number,
  page: PageRequest,
): Promise<OwnLicenseRow[]> {
  const rows = await ctx.db
    .select({ license: licenses, product: { id: products.id, name: products.name } })
    .from(licenses)
    .innerJoin(products, eq(products.id, licenses.productId))
    .where(eq(licenses.userId, userId))
    .orderBy(desc(licenses.createdAt), desc(licenses.id))
    .limit(page.perPage + 1)
    .offset(page.offset);
  const ids = rows.map((row) => row.license.id);
  const ips =
    ids.length === 0
      ? []
      : await ctx.db
          .select()
          .from(licenseIps)
          .where(inArray(licenseIps.licenseId, ids))
          .orderBy(asc(licenseIps.firstSeenAt), asc(licenseIps.ip));
  const resetsLeft = await ipResetsLeft(ctx, ids);
  const machineRows: MachineRow[] =
    ids.length === 0
      ? []
      : await ctx.db
          .select({ machine: machines, alive: aliveSql(licenses.heartbeatSeconds) })
          .from(machines)
          .innerJoin(licenses, eq(licenses.id, machines.licenseId))
          .where(inArray(machines.licenseId, ids))
          .orderBy(asc(machines.createdAt), asc(machines.id));
  return rows.map(({ license, product }) => ({
    license,
    product,
    ips: ips.filter((row) => row.licenseId === license.id),
    ipResetsLeft: resetsLeft.get(license.id) ?? 0,
    machines: machineRows.filter((row) => row.machine.licenseId === license.id),
  }));
}

/**
 * The owner forgets their license's addresses after moving a server: at most 3 times in any 24 hours.
 * The license row is locked so two resets at once cannot both pass the count.
 */
export function resetOwnLicenseIps(ctx: Pick<AppContext, "db">, actor: Actor, id: string) {
  return withTransaction(ctx, async (tx) => {
    if (!isUuid(id)) throw new NotFound("License");
    const [license] = await tx.db
      .select({ id: licenses.id, userId: licenses.userId })
      .from(licenses)
      .where(eq(licenses.id, id.toLowerCase()))
      .for("update");
    // Someone else's license is as unknown to this user as one that does not exist.
    if (!license || license.userId !== actor.user.id) throw new NotFound("License");
    const recent = await tx.db
      .select({ at: licenseIpResets.createdAt })
      .from(licenseIpResets)
      .where(and(eq(licenseIpResets.licenseId, license.id), gt(licenseIpResets.createdAt, dayAgo())))
      .orderBy(asc(licenseIpResets.createdAt));
    const wait = dailyLimitWait(recent, RESETS_PER_DAY);
    if (wait !== null) throw new TooManyAttempts(wait);
    await tx.db.insert(licenseIpResets).values({ licenseId: license.id, userId: actor.user.id });
    await forgetIps(tx, license.id, null);
  });
}

/** How many resets each license has left in the current 24 hours (the window the limit above counts). */
async function ipResetsLeft(ctx: Pick<AppContext, "db">, licenseIds: string[]): Promise<Map<string, number>> {
  const left = new Map(licenseIds.map((id) => [id, RESETS_PER_DAY]));
  if (licenseIds.length === 0) return left;
  const used = await ctx.db
    .select({ licenseId: licenseIpResets.licenseId, n: count() })
    .from(licenseIpResets)
    .where(and(inArray(licenseIpResets.licenseId, licenseIds), gt(licenseIpResets.createdAt, dayAgo())))
    .groupBy(licenseIpResets.licenseId);
  for (const { licenseId, n } of used) left.set(licenseId, Math.max(0, RESETS_PER_DAY - n));
  return left;
}
