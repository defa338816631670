import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { licenses, type Product, products } from "../../db/schema/index.ts";
import { Forbidden, NotFound, Unauthenticated } from "../../http/errors.ts";
import { checkSignedUrl } from "../../http/signed-url.ts";
import { allows } from "../auth/permissions.ts";
import { hasBenefit, isHolder, isLive } from "../licenses/holders.ts";
import { normaliseLicenseKey } from "../licenses/keys.ts";
import { ownsProduct } from "../products/service.ts";
import { authenticateToken } from "../tokens/service.ts";
import { findVersion, type VersionRow } from "./service.ts";

export interface DownloadCredentials {
  /** The request URL as the public sees it (signed URLs are signed over APP_URL). */
  url: URL;
  bearer: string | undefined;
  licenseKey: string | null;
}

/**
 * The version, if the caller may download it: a valid signed URL; or a bearer token of
 * the product's owner, an admin or a holder; or an `X-License-Key` that is live for this product.
 * For a benefit version a holder must also have the benefit.
 */
export async function downloadableVersion(
  ctx: Pick<AppContext, "db" | "appKey">,
  productId: number,
  versionId: number,
  credentials: DownloadCredentials,
): Promise<{ product: Product; row: VersionRow }> {
  const [product] = await ctx.db.select().from(products).where(eq(products.id, productId));
  if (!product) throw new NotFound("Product");
  const row = await findVersion(ctx, product.id, versionId);
  const benefit = row.benefit && { optionId: row.benefit.optionId };

  if (credentials.url.searchParams.has("signature")) {
    if (checkSignedUrl(credentials.url, ctx.appKey) !== "valid") throw new Forbidden("Invalid signature.");
    return { product, row };
  }
  if (credentials.bearer !== undefined) {
    const actor = await authenticateToken(ctx, credentials.bearer);
    if (!actor) throw new Unauthenticated();
    const allowed =
      allows(actor.permissions, "*") ||
      ownsProduct(actor.user.id, product) ||
      (await isHolder(ctx, actor.user.id, product.id, benefit));
    if (!allowed) throw new Forbidden();
    return { product, row };
  }
  if (credentials.licenseKey !== null) {
    const [license] = await ctx.db
      .select({ userId: licenses.userId })
      .from(licenses)
      .where(
        and(
          eq(licenses.key, normaliseLicenseKey(credentials.licenseKey)),
          eq(licenses.productId, product.id),
          isLive(),
        ),
      );
    const allowed =
      license && (benefit === null || (await hasBenefit(ctx, license.userId, product.id, benefit.optionId)));
    if (!allowed) throw new Forbidden("This license may not download this version.");
    return { product, row };
  }
  throw new Unauthenticated();
}
