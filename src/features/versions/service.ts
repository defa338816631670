import { and, asc, desc, eq, inArray, isNull, ne } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  artifacts,
  type Product,
  type PurchaseBenefit,
  products,
  purchaseBenefits,
  versions,
} from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Forbidden, Invalid, NotFound, validateAll } from "../../errors.ts";
import { errorFields } from "../../log-errors.ts";
import type { PageRequest } from "../../page-request.ts";
import { toId } from "../../validation/ids.ts";
import { assertValid } from "../../validation/messages.ts";
import { isSet } from "../../validation/schemas.ts";
import { insertOnce } from "../artifacts/insert-once.ts";
import { artifactsOf, artifactValues, storageKeysOf } from "../artifacts/rows.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { isHolder } from "../licenses/holders.ts";
import { findLiveProduct, findVisibleProduct, ownsProduct } from "../products/service.ts";
import { feedChanged } from "../updates/feed-cache.ts";
import { uploadedFile } from "../uploads/service.ts";
import { checkMarkdownLinks, sanitiseChangelog } from "./changelog.ts";
import { versionPublished } from "./jobs.ts";
import { firstArtifact, type VersionRow } from "./rows.ts";
import { PublishFields } from "./schemas.ts";
import { channelOfName } from "./semver.ts";
import { receiveUpload, type Upload, type UploadedFile } from "./upload.ts";

export interface PublishTarget {
  product: Product;
  /** The benefit named in the path, if any. */
  benefit: PurchaseBenefit | null;
}

/** Publishing (and deleting versions): `versions.publish` and an owner of the product, or `*`. */
export const mayPublish = (actor: Actor, product: Product) =>
  allows(actor.permissions, "*") ||
  (allows(actor.permissions, "versions.publish") && ownsProduct(actor.user.id, product));

/** Drafts are seen by the product's owners and admins only; to anyone else a draft does not exist. */
export const seesDrafts = (actor: Actor, product: Product) =>
  mayPublish(actor, product) || ownsProduct(actor.user.id, product);

/** What `latest` may answer: published versions only (no drafts, nothing yanked). */
const offered = () => eq(versions.status, "published");

/**
 * Checked before the body is read, so a refused caller never gets to upload: unknown product or
 * benefit → 404, not allowed → 403.
 */
export async function publishTarget(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  benefitId: number | null,
): Promise<PublishTarget> {
  const product = await findLiveProduct(ctx, productId);
  const benefit = benefitId === null ? null : await findBenefit(ctx, product.id, benefitId);
  if (benefitId !== null && !benefit) throw new NotFound("Benefit");
  if (!mayPublish(actor, product)) throw new Forbidden();
  return { product, benefit };
}

async function findBenefit(ctx: Pick<AppContext, "db">, productId: number, benefitId: number) {
  const [benefit] = await ctx.db
    .select()
    .from(purchaseBenefits)
    .where(and(eq(purchaseBenefits.id, benefitId), eq(purchaseBenefits.productId, productId)));
  return benefit ?? null;
}

/**
 * A publish request in full: the target checked before a byte of the body is read (a refused caller
 * never gets to upload), then the body streamed to the release store and published; a new version's
 * file counts as an upload.
 */
export async function publishFrom(
  ctx: AppContext,
  actor: Actor,
  request: Request,
  ids: { product: number; benefit?: number },
) {
  const target = await publishTarget(ctx, actor, ids.product, ids.benefit ?? null);
  const upload = await receiveUpload(ctx, request, target.product.id);
  const published = await publishVersion(ctx, actor, target, upload);
  if (published.created) ctx.metrics?.upload(firstArtifact(published.row).fileSize);
  return published;
}

/**
 * Keeps the uploaded file and inserts the version with its `version.published` job in one transaction
 * (the outbox). The same name and the same file again is the pipeline retrying: the existing version
 * comes back with `created: false`. The file the request carried is removed on the way out, whether
 * this returns or throws, unless the new version now points at it.
 */
export async function publishVersion(
  ctx: Pick<AppContext, "db" | "jobs" | "releases" | "config">,
  actor: Actor,
  target: PublishTarget,
  upload: Upload,
): Promise<{ row: VersionRow; created: boolean }> {
  // Removed when this returns or throws, unless insertOnce below hands it to the new version.
  await using received = upload.file;
  // All four checks run and every failure goes into one 422. When two checks refuse the same field,
  // the schema's message is the one shown, because it is listed last.
  const [benefit, , fields, file] = await validateAll(
    () => benefitOf(ctx, target, upload.fields.benefit_id as PublishFields["benefit_id"]),
    () => checkChangelogLinks(upload.fields, ctx.config.appUrl),
    () => {
      assertValid(PublishFields, upload.fields);
      return upload.fields;
    },
    async () => requireFile(await fileOf(ctx, actor, upload)),
  );
  const format = fields.changelog_format ?? "markdown";
  const changelog =
    format === "html" ? sanitiseChangelog(fields.changelog, ctx.config.appUrl) : fields.changelog;

  // A draft is seen by its publishers only, and notified when PATCH releases it (release.ts).
  const draft = isSet(fields.draft);
  // Awaited here, not returned as it is: `received` must outlive the insert that may keep it.
  // Two identical posts may race: the loser answers like a retry would.
  return await insertOnce(ctx, file, received, {
    existing: () => findByName(ctx, target.product.id, benefit?.id ?? null, fields.version_name),
    again: (existing) => repost(existing, file.sha256),
    insert: async (tx) => {
      const [row] = await tx.db
        .insert(versions)
        .values({
          productId: target.product.id,
          purchaseBenefitId: benefit?.id ?? null,
          versionNumber: fields.version_name,
          title: fields.title,
          changelog,
          changelogFormat: format,
          channel: fields.channel ?? channelOfName(fields.version_name),
          status: draft ? "draft" : "published",
          publishedAt: draft ? null : new Date(),
          publishedBy: actor.user.id,
        })
        .returning();
      if (!row) throw new Error("version insert returned nothing");
      const [artifact] = await tx.db
        .insert(artifacts)
        .values(artifactValues(row.id, fields, file))
        .returning();
      if (!artifact) throw new Error("artifact insert returned nothing");
      await feedChanged(tx, target.product.id);
      if (!draft) await ctx.jobs.sendInTransaction(tx.db, versionPublished, { version_id: row.id });
      return { version: row, benefit: benefit && pick(benefit), artifacts: [artifact] };
    },
  });
}

/** The request's file: the one it carried, or the resumable upload its `upload_id` names. */
export async function fileOf(
  ctx: Pick<AppContext, "db" | "releases" | "config">,
  actor: Actor,
  upload: Upload,
): Promise<UploadedFile | null> {
  if (upload.uploadId === undefined) return upload.file;
  if (upload.file) throw new Invalid({ upload_id: ["Send either a file or an upload id, not both."] });
  return uploadedFile(ctx, actor, upload.uploadId);
}

export function requireFile(file: UploadedFile | null): UploadedFile {
  if (!file) throw new Invalid({ file: ["The file field is required."] });
  if (file.size === 0) throw new Invalid({ file: ["The file field must not be empty."] });
  return file;
}

/** A Markdown changelog (the default format) may not point at depot itself; the schema checks the rest. */
function checkChangelogLinks(fields: Record<string, unknown>, appUrl: string): void {
  const { changelog, changelog_format: format = "markdown" } = fields;
  if (typeof changelog === "string" && format === "markdown") checkMarkdownLinks(changelog, appUrl);
}

/** The benefit a version is for: the one in the path, or `benefit_id` in the body (which must agree). */
async function benefitOf(
  ctx: Pick<AppContext, "db">,
  target: PublishTarget,
  raw: PublishFields["benefit_id"],
) {
  if (raw === undefined || raw === null || raw === "") return target.benefit;
  const id = toId(raw);
  const benefit = id === null ? null : await findBenefit(ctx, target.product.id, id);
  if (!benefit || (target.benefit && target.benefit.id !== benefit.id)) {
    throw new Invalid({ benefit_id: ["The selected benefit id is invalid."] });
  }
  return benefit;
}

/** The same name again: harmless with the same file (a retried pipeline step), a 422 with another. */
function repost(existing: VersionRow, sha256: string): VersionRow {
  if (firstArtifact(existing).sha256 !== sha256) {
    throw new Invalid({ version_name: ["The version name has already been taken."] });
  }
  return existing;
}

async function findByName(
  ctx: Pick<AppContext, "db">,
  productId: number,
  benefitId: number | null,
  name: string,
) {
  const [row] = await withArtifacts(
    ctx,
    await selectVersions(ctx).where(
      and(
        eq(versions.productId, productId),
        benefitId === null ? isNull(versions.purchaseBenefitId) : eq(versions.purchaseBenefitId, benefitId),
        eq(versions.versionNumber, name),
      ),
    ),
  );
  return row ?? null;
}

const selectVersions = (ctx: Pick<AppContext, "db">) =>
  ctx.db
    .select({
      version: versions,
      benefit: { id: purchaseBenefits.id, optionId: purchaseBenefits.optionId, name: purchaseBenefits.name },
    })
    .from(versions)
    .leftJoin(purchaseBenefits, eq(purchaseBenefits.id, versions.purchaseBenefitId))
    .$dynamic();

/** The rows with their artifacts, read in one more query. */
async function withArtifacts(
  ctx: Pick<AppContext, "db">,
  rows: Omit<VersionRow, "artifacts">[],
): Promise<VersionRow[]> {
  const files = await artifactsOf(
    ctx,
    rows.map((row) => row.version.id),
  );
  return rows.map((row) => ({ ...row, artifacts: files.get(row.version.id) ?? [] }));
}

const pick = (benefit: PurchaseBenefit) => ({
  id: benefit.id,
  optionId: benefit.optionId,
  name: benefit.name,
});

/**
 * A product whose versions `actor` may read: one they may see, or one they hold. A holder may download
 * from a hidden, disabled or deleted product (downloads/access.ts), so they may also list what there is to
 * download; to anyone else such a product stays the unknown product's 404.
 */
async function findProductOfVersions(ctx: Pick<AppContext, "db">, actor: Actor, productId: number) {
  try {
    return await findVisibleProduct(ctx, actor, productId);
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    const [product] = await ctx.db.select().from(products).where(eq(products.id, productId));
    if (product && (await isHolder(ctx, actor.user.id, product.id, null))) return product;
    throw error;
  }
}

/** A product's versions, newest first, for whoever may see or holds the product (drafts: its publishers). */
export async function listVersions(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  page: PageRequest,
): Promise<VersionRow[]> {
  const product = await findProductOfVersions(ctx, actor, productId);
  return withArtifacts(
    ctx,
    await selectVersions(ctx)
      .where(
        and(
          eq(versions.productId, product.id),
          seesDrafts(actor, product) ? undefined : ne(versions.status, "draft"),
        ),
      )
      .orderBy(desc(versions.id))
      .limit(page.perPage + 1)
      .offset(page.offset),
  );
}

/**
 * The newest published version of the whole product, or of one benefit, for whoever may see or holds
 * the product: never a draft or a yanked version.
 */
export async function latestVersion(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  benefitId: number | null = null,
) {
  const product = await findProductOfVersions(ctx, actor, productId);
  const [row] = await selectVersions(ctx)
    .where(
      and(
        eq(versions.productId, product.id),
        benefitId === null ? isNull(versions.purchaseBenefitId) : eq(versions.purchaseBenefitId, benefitId),
        offered(),
      ),
    )
    .orderBy(desc(versions.id))
    .limit(1);
  if (!row) throw new NotFound("Version");
  return (await withArtifacts(ctx, [row]))[0] as VersionRow;
}

/** One version, for whoever may see or holds its product. */
export async function readVersion(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  ids: { product: number; version: number },
) {
  const product = await findProductOfVersions(ctx, actor, ids.product);
  const row = await findVersion(ctx, product.id, ids.version);
  if (row.version.status === "draft" && !seesDrafts(actor, product)) throw new NotFound("Version");
  return row;
}

/**
 * The newest published version of each product and of each of its benefits, one row for each that has
 * any. No caller is checked here: whoever calls this decides what may be shown.
 */
export async function latestVersionsOf(ctx: Pick<AppContext, "db">, productIds: number[]) {
  if (productIds.length === 0) return [];
  const rows = await ctx.db
    .selectDistinctOn([versions.productId, versions.purchaseBenefitId], {
      version: versions,
      benefit: { id: purchaseBenefits.id, optionId: purchaseBenefits.optionId, name: purchaseBenefits.name },
    })
    .from(versions)
    .leftJoin(purchaseBenefits, eq(purchaseBenefits.id, versions.purchaseBenefitId))
    .where(and(inArray(versions.productId, productIds), offered()))
    .orderBy(asc(versions.productId), asc(versions.purchaseBenefitId), desc(versions.id));
  return withArtifacts(ctx, rows);
}

export async function findVersion(ctx: Pick<AppContext, "db">, productId: number, versionId: number) {
  const [row] = await selectVersions(ctx).where(
    and(eq(versions.productId, productId), eq(versions.id, versionId)),
  );
  if (!row) throw new NotFound("Version");
  return (await withArtifacts(ctx, [row]))[0] as VersionRow;
}

/** A version of the whole product by its name (the update feeds' file URLs name versions). */
export async function findVersionNamed(ctx: Pick<AppContext, "db">, productId: number, name: string) {
  const [row] = await selectVersions(ctx).where(
    and(
      eq(versions.productId, productId),
      isNull(versions.purchaseBenefitId),
      eq(versions.versionNumber, name),
    ),
  );
  if (!row) throw new NotFound("Version");
  return (await withArtifacts(ctx, [row]))[0] as VersionRow;
}

/**
 * Deletes a version for whoever may publish to its product (others who can see the product get 403,
 * the rest 404): the row, then the file (a download already streaming keeps its open file).
 */
export async function deleteVersion(
  ctx: Pick<AppContext, "db" | "releases" | "log">,
  actor: Actor,
  ids: { product: number; version: number },
) {
  const product = await findVisibleProduct(ctx, actor, ids.product);
  if (!mayPublish(actor, product)) throw new Forbidden();
  // The artifacts go with the version (ON DELETE CASCADE); their keys are read in the same statement.
  const keys = await withTransaction(ctx, async (tx) => {
    const files = await tx.db
      .select({ storageKey: artifacts.storageKey, blockmapStorageKey: artifacts.blockmapStorageKey })
      .from(artifacts)
      .innerJoin(versions, eq(versions.id, artifacts.versionId))
      .where(and(eq(versions.productId, product.id), eq(versions.id, ids.version)));
    const deleted = await tx.db
      .delete(versions)
      .where(and(eq(versions.productId, product.id), eq(versions.id, ids.version)))
      .returning({ id: versions.id });
    if (deleted.length === 0) throw new NotFound("Version");
    await feedChanged(tx, product.id);
    return files.flatMap(storageKeysOf);
  });
  await removeFiles(ctx, keys);
}

/** Removes release files no row points at any more (a download already streaming keeps its open file). */
export async function removeFiles(ctx: Pick<AppContext, "releases" | "log">, keys: string[]) {
  for (const key of keys) {
    try {
      await ctx.releases.remove(key);
    } catch (error) {
      // The row is gone either way; a file left behind is an orphan the hourly sweep removes.
      ctx.log.warn("release file not removed", { storage_key: key, error: errorFields(error) });
    }
  }
}
