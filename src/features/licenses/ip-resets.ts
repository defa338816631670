import { and, asc, count, eq, gt, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenseIpResets, licenses } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { NotFound, TooManyAttempts } from "../../errors.ts";
import type { Actor } from "../auth/actor.ts";
import { forgetIps, isLicenseId } from "./service.ts";

const RESETS_PER_DAY = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The owner forgets their license's addresses after moving a server: at most 3 times in any 24 hours.
 * The license row is locked so two resets at once cannot both pass the count.
 */
export function resetOwnLicenseIps(ctx: Pick<AppContext, "db">, actor: Actor, id: string) {
  return withTransaction(ctx, async (tx) => {
    if (!isLicenseId(id)) throw new NotFound("License");
    const [license] = await tx.db
      .select({ id: licenses.id, userId: licenses.userId })
      .from(licenses)
      .where(eq(licenses.id, id.toLowerCase()))
      .for("update");
    // Someone else's license is as unknown to this user as one that does not exist.
    if (!license || license.userId !== actor.user.id) throw new NotFound("License");
    const since = new Date(Date.now() - DAY_MS);
    const recent = await tx.db
      .select({ at: licenseIpResets.createdAt })
      .from(licenseIpResets)
      .where(and(eq(licenseIpResets.licenseId, license.id), gt(licenseIpResets.createdAt, since)))
      .orderBy(asc(licenseIpResets.createdAt));
    const [oldest] = recent;
    if (recent.length >= RESETS_PER_DAY && oldest) {
      throw new TooManyAttempts(Math.ceil((oldest.at.getTime() + DAY_MS - Date.now()) / 1000));
    }
    await tx.db.insert(licenseIpResets).values({ licenseId: license.id, userId: actor.user.id });
    await forgetIps(tx, license.id, null);
  });
}

/** How many resets each license has left in the current 24 hours (the window the limit above counts). */
export async function ipResetsLeft(
  ctx: Pick<AppContext, "db">,
  licenseIds: string[],
): Promise<Map<string, number>> {
  const left = new Map(licenseIds.map((id) => [id, RESETS_PER_DAY]));
  if (licenseIds.length === 0) return left;
  const since = new Date(Date.now() - DAY_MS);
  const used = await ctx.db
    .select({ licenseId: licenseIpResets.licenseId, n: count() })
    .from(licenseIpResets)
    .where(and(inArray(licenseIpResets.licenseId, licenseIds), gt(licenseIpResets.createdAt, since)))
    .groupBy(licenseIpResets.licenseId);
  for (const { licenseId, n } of used) left.set(licenseId, Math.max(0, RESETS_PER_DAY - n));
  return left;
}
