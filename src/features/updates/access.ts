import { eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { preparedOnce } from "../../db/prepared.ts";
import { licenses, type Product, products } from "../../db/schema/index.ts";
import { Forbidden, NotFound, Unauthenticated } from "../../errors.ts";
import { requestState } from "../../http/request-state.ts";
import { answerDownload, type DownloadRequest } from "../downloads/serve.ts";
import { liveLicense } from "../licenses/holders.ts";
import { normaliseLicenseKey } from "../licenses/keys.ts";
import { isListed } from "../products/service.ts";
import { reportedVersion } from "./reported-version.ts";

/**
 * Who may read a product's update feeds. Updaters send one credential on every request, the license
 * key, as `Authorization: License <key>` (electron-updater's `requestHeaders`, Tauri's `headers`,
 * Sparkle's and Squirrel's request headers can all carry it).
 */

/** The key of an `Authorization: License <key>` header (scheme case-insensitive), or null. */
export function licenseOf(request: Request): string | null {
  const match = /^license[ \t]+(\S.*)$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1] ? normaliseLicenseKey(match[1].trim()) : null;
}

/** What the feeds read of a product: who may, and what an appcast calls it. */
type FeedProduct = Pick<Product, "id" | "name" | "free" | "hidden" | "disabled" | "deletedAt">;

export interface FeedAccess {
  product: FeedProduct;
  /** The license key that opened the feed (null for a free product read without one). */
  licenseKey: string | null;
  /** The key's owner, a holder of the product (null without a key). */
  holderId: number | null;
}

const NOT_A_HOLDER = "This license does not hold this product.";

/**
 * The product, if `licenseKey` may read its feeds: the license must make its owner a holder of the
 * product (the rule downloads use: live, for this product). A product with `free` set needs no key.
 * No key: 401; a key that is not a holder's: 403; a product that does not exist, or that is hidden,
 * disabled or deleted and the key is not a holder's: 404, as to anyone who may not know it.
 * One prepared read of the product with the license beside it, as cheap as a validation.
 */
export async function feedAccess(
  ctx: Pick<AppContext, "db">,
  productId: number,
  licenseKey: string | null,
): Promise<FeedAccess> {
  const [row] = await preparedOnce(ctx.db, "feed_access", prepareAccess).execute({
    product: productId,
    key: licenseKey ?? "",
  });
  if (!row) throw new NotFound("Product");
  const { holderId, ...product } = row;
  if (!isListed(product) && holderId === null) throw new NotFound("Product");
  if (holderId !== null || product.free) return { product, licenseKey, holderId };
  if (licenseKey === null) throw new Unauthenticated("Unauthenticated.", "License");
  throw new Forbidden(NOT_A_HOLDER);
}

/**
 * The product and the owner of the license with the key, if it makes them a holder (`holdsProduct`'s
 * rule for a whole-product version: a live license of this product), in one prepared statement:
 * every poll runs it (db/prepared.ts).
 */
const prepareAccess = (db: Db) =>
  db
    .select({
      id: products.id,
      name: products.name,
      free: products.free,
      hidden: products.hidden,
      disabled: products.disabled,
      deletedAt: products.deletedAt,
      // Columns in a select list are written unqualified, so the product's id is named in full.
      holderId: sql<number | null>`(SELECT ${licenses.userId} FROM ${licenses}
        WHERE ${licenses.key} = ${sql.placeholder("key")} AND ${liveLicense()}
          AND ${licenses.productId} = "products"."id" LIMIT 1)`.mapWith(Number),
    })
    .from(products)
    .where(eq(products.id, sql.placeholder("product")))
    .prepare("feed_access");

/** The longest `x-user-staging-id` kept as a cohort key (electron-updater sends a UUID). */
const MAX_STAGING_ID = 200;

/**
 * What a staged rollout knows the client by, the same on every poll: the `x-user-staging-id` header
 * electron-updater sends on every request (a UUID it keeps on disk), else the license key, else the
 * client's address.
 */
export function cohortKey(request: Request, access: FeedAccess, ip: string | null): string {
  const staging = request.headers.get("x-user-staging-id")?.trim();
  if (staging && staging.length <= MAX_STAGING_ID) return `staging:${staging}`;
  if (access.licenseKey !== null) return `license:${access.licenseKey}`;
  return `address:${ip ?? "unknown"}`;
}

/** A feed request once opened (openFeed): what the caller may read, and its staged rollouts' cohort. */
export interface OpenFeed {
  access: FeedAccess;
  cohort: string;
  /** The version the client says it runs outside the URL (reported-version.ts), or ''. */
  reportedVersion: string;
}

/**
 * A feed request opened: the caller's access to the product's feeds (the holder is logged as who
 * asked), and the cohort its staged rollouts draw it in. Every feed and the upgrade check start here.
 */
export async function openFeed(
  ctx: Pick<AppContext, "db">,
  request: Request,
  productId: number,
): Promise<OpenFeed> {
  const access = await feedAccess(ctx, productId, licenseOf(request));
  const state = requestState(request);
  if (access.holderId !== null) state.who.user_id = access.holderId;
  return {
    access,
    cohort: cohortKey(request, access, state.ip),
    reportedVersion: reportedVersion(request.headers),
  };
}

/**
 * A file an update feed names, by the version's name and the file's (`X.blockmap`: the blockmap kept
 * with `X`): the download rules (downloads/serve.ts), with the license of
 * `Authorization: License <key>` too, and a free product's files open to a caller who sends nothing.
 */
export const answerFeedFile = (
  ctx: AppContext,
  params: { product: number; version: string; file: string },
  request: DownloadRequest,
) =>
  answerDownload(
    ctx,
    request,
    { product: params.product, version: { name: params.version }, artifact: { name: params.file } },
    { licenseKey: licenseOf(request.request), openWhenFree: true },
  );
