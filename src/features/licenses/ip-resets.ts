import { and, asc, eq, gt } from "drizzle-orm";
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
