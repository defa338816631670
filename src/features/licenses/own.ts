import { asc, desc, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenseIps, licenses, products } from "../../db/schema/index.ts";
import type { PageRequest } from "../../pagination.ts";
import { ipResetsLeft } from "./ip-resets.ts";
import type { OwnLicenseJson } from "./schemas.ts";
import { licenseStatus } from "./status.ts";

/**
 * The user's own licenses, newest first, with their product, addresses and resets left; one more row
 * than a page, for `simplePage`. Every license the user owns is listed, whatever became of its
 * product: hidden, disabled or soft-deleted, the product keeps its id and name here, because the
 * license is the owner's own record of what they were sold (and a holder may still download from
 * such a product, versions/download.ts). Other users' licenses never appear.
 */
export async function listOwnLicenses(
  ctx: Pick<AppContext, "db">,
  userId: number,
  page: PageRequest,
): Promise<OwnLicenseJson[]> {
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
  return rows.map(({ license, product }) => ({
    id: license.id,
    key: license.key,
    product,
    expires: license.expires?.toISOString() ?? null,
    revoked: license.revokedAt !== null,
    status: licenseStatus(license),
    max_ips: license.maxIps,
    ips: ips
      .filter((row) => row.licenseId === license.id)
      .map((row) => ({
        ip: row.ip,
        first_seen_at: row.firstSeenAt.toISOString(),
        last_seen_at: row.lastSeenAt.toISOString(),
      })),
    ip_resets_left: resetsLeft.get(license.id) ?? 0,
    created_at: license.createdAt.toISOString(),
  }));
}
