import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Product, products } from "../../db/schema/index.ts";
import { Forbidden, NotFound, Unauthenticated } from "../../errors.ts";
import { checkSignedUrl, type SignatureCheck } from "../../signed-url.ts";
import { type Actor, linkActorOf } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { holderByKey, isHolder } from "../licenses/holders.ts";
import { normaliseLicenseKey } from "../licenses/keys.ts";
import { isListed, ownsProduct } from "../products/service.ts";
import { authenticateToken } from "../tokens/service.ts";
import { findUserWithRole } from "../users/service.ts";
import type { VersionRow } from "../versions/rows.ts";
import { findVersion, findVersionNamed } from "../versions/service.ts";

export interface DownloadCredentials {
  /** The request URL as the public sees it (signed URLs are signed over APP_URL). */
  url: URL;
  bearer: string | undefined;
  licenseKey: string | null;
  /** The dashboard's session, looked up only when nothing else was sent (a header decides on its own). */
  session: () => Promise<Actor | null>;
  /**
   * Whether a free product's files are open to a caller who sent nothing: the update feeds' file
   * URLs, which an app of a free product fetches with no key (its feed needed none).
   */
  openWhenFree?: boolean;
}

/**
 * A link signed before links named their user. Its signature is good, but it names no user whose right
 * to download could be checked again, so it is refused; opening the notification gives a fresh link.
 */
const UNNAMED_LINK =
  "This download link is from before links named their user; open the notification again for a new one.";

/** A good link whose user may no longer download (their license was revoked or expired). */
const LINK_USER_REFUSED = "The user this link was issued to may no longer download this version.";

/** Who is asking, by the one credential they brought (a signature, a token or session, a license key). */
type Caller =
  /** A signed link that is no good: tampered with, signed with another key, or past its expiry. */
  | { by: "bad signature" }
  | { by: "unnamed link" }
  /** A bearer token, the dashboard's session cookie or a signed link's user: the same rules for all. */
  | { by: "user"; actor: Actor }
  /** The key, and the owner of a live license of this product with it (null for any other key). */
  | { by: "license"; key: string; holderId: number | null }
  | { by: "nothing" };

/**
 * The version, if the caller may download it: a bearer token, the dashboard session or a valid signed
 * link of the product's owner, an admin or a holder (a link acts as the user it was issued to, checked
 * as they are now: a revoked license no longer downloads by last week's link); or an `X-License-Key`
 * that is live for this product. For a benefit version a holder must also have the benefit. To a caller
 * who may not read it, a hidden, disabled or deleted product is a 404, exactly like a product that
 * does not exist, whatever credential they sent.
 */
export async function downloadableVersion(
  ctx: Pick<AppContext, "db" | "appKey" | "config">,
  productId: number,
  /** The version's id, or the name of a version of the whole product (the update feeds' file URLs). */
  version: number | { name: string },
  credentials: DownloadCredentials,
): Promise<{ product: Product; row: VersionRow; userId: number | null }> {
  const [product] = await ctx.db.select().from(products).where(eq(products.id, productId));
  if (!product) throw new NotFound("Product");
  const caller = await identify(ctx, product, credentials);
  if (!isListed(product) && !(await mayKnow(ctx, caller, product))) throw new NotFound("Product");
  const row =
    typeof version === "number"
      ? await findVersion(ctx, product.id, version)
      : await findVersionNamed(ctx, product.id, version.name);
  // A draft is its publishers' alone: to anyone else it does not exist yet. A yanked version still
  // downloads for those who may download it.
  if (row.version.status === "draft" && !(caller.by === "user" && managesReleases(caller.actor, product)))
    throw new NotFound("Version");
  if (caller.by === "nothing" && credentials.openWhenFree && product.free && row.benefit === null) {
    return { product, row, userId: null };
  }
  await authorize(ctx, caller, product, row);
  const userId =
    caller.by === "user" ? caller.actor.user.id : caller.by === "license" ? caller.holderId : null;
  return { product, row, userId };
}

async function identify(
  ctx: Pick<AppContext, "db" | "appKey" | "config">,
  product: Product,
  credentials: DownloadCredentials,
): Promise<Caller> {
  if (credentials.url.searchParams.has("signature")) {
    return linkCaller(ctx, checkSignedUrl(credentials.url, ctx.appKey));
  }
  if (credentials.bearer !== undefined) {
    const actor = await authenticateToken(ctx, credentials.bearer);
    if (!actor) throw new Unauthenticated();
    return { by: "user", actor };
  }
  if (credentials.licenseKey !== null) {
    const key = normaliseLicenseKey(credentials.licenseKey);
    return { by: "license", key, holderId: await holderByKey(ctx, key, product.id, null) };
  }
  const actor = await credentials.session();
  return actor ? { by: "user", actor } : { by: "nothing" };
}

async function linkCaller(ctx: Pick<AppContext, "db">, check: SignatureCheck): Promise<Caller> {
  if (check.status !== "valid") return { by: "bad signature" };
  if (check.userId === null) return { by: "unnamed link" };
  return { by: "user", actor: linkActorOf(await findUserWithRole(ctx, check.userId)) };
}

/**
 * Whether the caller may know an unlisted product exists: its owners and admins, its holders, and an
 * unnamed link (depot itself gave it out for this product, so its refusal may say why).
 */
async function mayKnow(ctx: Pick<AppContext, "db">, caller: Caller, product: Product): Promise<boolean> {
  switch (caller.by) {
    case "bad signature":
      return false;
    case "unnamed link":
      return true;
    case "user":
      return (
        allows(caller.actor.permissions, "products.manage") ||
        ownsProduct(caller.actor.user.id, product) ||
        isHolder(ctx, caller.actor.user.id, product.id, null)
      );
    case "license":
      return caller.holderId !== null;
    case "nothing":
      return false;
  }
}

const managesReleases = (actor: Actor, product: Product) =>
  allows(actor.permissions, "*") || ownsProduct(actor.user.id, product);

async function authorize(ctx: Pick<AppContext, "db">, caller: Caller, product: Product, row: VersionRow) {
  const optionId = row.benefit?.optionId ?? null;
  switch (caller.by) {
    case "bad signature":
      throw new Forbidden("Invalid signature.");
    case "unnamed link":
      throw new Forbidden(UNNAMED_LINK);
    case "user": {
      const { actor } = caller;
      const allowed =
        allows(actor.permissions, "*") ||
        ownsProduct(actor.user.id, product) ||
        (await isHolder(ctx, actor.user.id, product.id, optionId));
      if (allowed) return;
      throw actor.via === "link" ? new Forbidden(LINK_USER_REFUSED) : new Forbidden();
    }
    case "license": {
      const allowed =
        caller.holderId !== null &&
        (optionId === null || (await holderByKey(ctx, caller.key, product.id, optionId)) !== null);
      if (!allowed) throw new Forbidden("This license may not download this version.");
      return;
    }
    case "nothing":
      throw new Unauthenticated();
  }
}
