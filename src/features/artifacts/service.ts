import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { type Artifact, artifacts, type Product, type Version, versions } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { Forbidden, Invalid, NotFound, validateAll } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { assertValid } from "../../validation/messages.ts";
import type { Actor } from "../auth/actor.ts";
import { findLiveProduct, findVisibleProduct } from "../products/service.ts";
import { feedChanged } from "../updates/feed-cache.ts";
import { consumeUpload } from "../uploads/service.ts";
import { fileOf, mayPublish, removeFiles, requireFile } from "../versions/service.ts";
import { receiveUpload, type Upload, type UploadedFile } from "../versions/upload.ts";
import { insertOnce } from "./insert-once.ts";
import { artifactValues, storageKeysOf } from "./rows.ts";
import { type ArtifactChange, ArtifactChangeBody, ArtifactUploadFields } from "./schemas.ts";

/** The version a file is added to, checked before a byte of the body is read. */
export interface ArtifactTarget {
  product: Product;
  version: Version;
}

/** Unknown product or version → 404, not allowed to publish → 403 (the publish routes' rule). */
export async function artifactTarget(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  productId: number,
  versionId: number,
): Promise<ArtifactTarget> {
  const product = await findLiveProduct(ctx, productId);
  if (!mayPublish(actor, product)) throw new Forbidden();
  const [version] = await ctx.db
    .select()
    .from(versions)
    .where(and(eq(versions.productId, product.id), eq(versions.id, versionId)));
  if (!version) throw new NotFound("Version");
  return { product, version };
}

/**
 * An add-a-file request in full: the target checked before a byte of the body is read, as publishing
 * does, then the body streamed to the release store and added; a new artifact counts as an upload.
 */
export async function addArtifactFrom(
  ctx: AppContext,
  actor: Actor,
  request: Request,
  ids: { product: number; version: number },
) {
  const target = await artifactTarget(ctx, actor, ids.product, ids.version);
  const upload = await receiveUpload(ctx, request, target.product.id);
  const added = await addArtifact(ctx, actor, target, upload);
  if (added.created) ctx.metrics?.upload(added.artifact.fileSize);
  return { ...added, product: target.product };
}

/** A signature file is text of a few hundred bytes; anything larger is not one. */
const MAX_SIGNATURE_BYTES = 16_384;

/** `X.blockmap` and `X.sig` are kept on the artifact `X`, not listed on their own. */
function companionOf(fileName: string): { kind: "blockmap" | "sig"; of: string } | null {
  for (const kind of ["blockmap", "sig"] as const) {
    const suffix = `.${kind}`;
    if (fileName.length > suffix.length && fileName.endsWith(suffix))
      return { kind, of: fileName.slice(0, -suffix.length) };
  }
  return null;
}

/**
 * Adds a file to a version (a draft being filled by several CI runners at once, or a published one).
 * The same platform, arch and name again is a retry when the file is identical (`created: false`, the
 * existing artifact), else a 422. A blockmap or signature file is attached to the artifact it names
 * and that artifact is returned. The file the request carried is removed unless an artifact keeps it.
 */
export async function addArtifact(
  ctx: Pick<AppContext, "db" | "releases" | "config" | "log">,
  actor: Actor,
  target: ArtifactTarget,
  upload: Upload,
): Promise<{ artifact: Artifact; created: boolean }> {
  await using received = upload.file;
  const [fields, file] = await validateAll(
    () => {
      assertValid(ArtifactUploadFields, upload.fields);
      return upload.fields as typeof ArtifactUploadFields.static;
    },
    async () => requireFile(await fileOf(ctx, actor, upload)),
  );
  const companion = companionOf(file.fileName);
  if (companion) {
    const owner = await ownerOf(ctx, target.version.id, companion.of, fields);
    const attached =
      companion.kind === "sig"
        ? await attachSignature(ctx, owner, file, received)
        : await attachBlockmap(ctx, owner, file, received);
    if (attached.created) await feedChanged(ctx, target.product.id);
    return attached;
  }
  const values = artifactValues(target.version.id, fields, file);
  // Two runners may send the same file at once: the loser answers like a retry would.
  const { row, created } = await insertOnce(ctx, file, received, {
    existing: () => findArtifact(ctx, values),
    again: (existing) => repost(existing, file.sha256),
    insert: async (tx) => {
      const [row] = await tx.db.insert(artifacts).values(values).returning();
      if (!row) throw new Error("artifact insert returned nothing");
      await feedChanged(tx, target.product.id);
      return row;
    },
  });
  return { artifact: row, created };
}

type ArtifactKey = Pick<Artifact, "versionId" | "platform" | "arch" | "fileName">;

async function findArtifact(ctx: Pick<AppContext, "db">, key: ArtifactKey) {
  const [row] = await ctx.db
    .select()
    .from(artifacts)
    .where(
      and(
        eq(artifacts.versionId, key.versionId),
        eq(artifacts.platform, key.platform),
        eq(artifacts.arch, key.arch),
        eq(artifacts.fileName, key.fileName),
      ),
    );
  return row ?? null;
}

/** The same file again is a retry (the existing artifact); another one under its name is a 422. */
function repost(existing: Artifact, sha256: string): Artifact {
  if (existing.sha256 !== sha256) {
    throw new Invalid({
      file: [
        `This version already has a different ${existing.fileName} for ${existing.platform}/${existing.arch}.`,
      ],
    });
  }
  return existing;
}

/**
 * The artifact named `fileName` that a blockmap or signature belongs to: the one with that name, or,
 * when several platforms share the name, the one the request's platform and arch pick.
 */
async function ownerOf(
  ctx: Pick<AppContext, "db">,
  versionId: number,
  fileName: string,
  fields: { platform?: Artifact["platform"]; arch?: Artifact["arch"] },
): Promise<Artifact> {
  const named = await ctx.db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.versionId, versionId), eq(artifacts.fileName, fileName)))
    .orderBy(asc(artifacts.id));
  const picked = named.filter(
    (a) =>
      (fields.platform === undefined || a.platform === fields.platform) &&
      (fields.arch === undefined || a.arch === fields.arch),
  );
  if (picked.length === 1) return picked[0] as Artifact;
  throw new Invalid({
    file: [
      picked.length === 0
        ? `This version has no file named ${fileName} to attach this file to; add ${fileName} first.`
        : `Several files of this version are named ${fileName}: send the platform and arch of the one this belongs to.`,
    ],
  });
}

/**
 * A `.sig` file's text becomes the artifact's signature. The file itself is not kept: it is read once
 * it is in place and removed again (a crash in between leaves an orphan the hourly sweep removes). The
 * same signature again is a retry; another one replaces nothing (422): delete the artifact to re-sign.
 */
async function attachSignature(
  ctx: Pick<AppContext, "db" | "releases" | "log">,
  owner: Artifact,
  file: UploadedFile,
  received: Upload["file"],
): Promise<{ artifact: Artifact; created: boolean }> {
  if (file.size > MAX_SIGNATURE_BYTES) {
    throw new Invalid({ file: [`A signature file may not be greater than ${MAX_SIGNATURE_BYTES} bytes.`] });
  }
  const read = () => readText(ctx, file.key);
  let text: string;
  try {
    text = received ? await received.keepFor(read) : await read();
  } finally {
    // A resumable upload's file stays the upload's (its expiry removes it); a sent one goes now.
    if (received) await removeFiles(ctx, [file.key]);
  }
  const signature = text.trim();
  if (signature === "" || signature.includes("\u0000")) {
    throw new Invalid({ file: ["A signature file must be text."] });
  }
  if (owner.signature === signature) return { artifact: owner, created: false };
  if (owner.signature !== null) {
    throw new Invalid({
      file: [`${owner.fileName} already has another signature; delete it and add it again to re-sign.`],
    });
  }
  // Only while it has none: of two signatures sent at once, one wins; the same one again is a retry.
  const [updated] = await ctx.db
    .update(artifacts)
    .set({ signature })
    .where(and(eq(artifacts.id, owner.id), isNull(artifacts.signature)))
    .returning();
  if (updated) return { artifact: updated, created: true };
  const [now] = await ctx.db.select().from(artifacts).where(eq(artifacts.id, owner.id));
  if (now?.signature === signature) return { artifact: now, created: false };
  throw new Invalid({ file: [`${owner.fileName} already has another signature.`] });
}

/** The blockmap is kept beside the file; the same blockmap again is a retry, another one a 422. */
async function attachBlockmap(
  ctx: Pick<AppContext, "db" | "releases" | "log">,
  owner: Artifact,
  file: UploadedFile,
  received: Upload["file"],
): Promise<{ artifact: Artifact; created: boolean }> {
  if (owner.blockmapSha256 === file.sha256) return { artifact: owner, created: false };
  if (owner.blockmapStorageKey !== null) {
    throw new Invalid({
      file: [`${owner.fileName} already has another blockmap; delete it and add it again.`],
    });
  }
  const attach = () =>
    withTransaction(ctx, async (tx) => {
      const [row] = await tx.db
        .update(artifacts)
        .set({ blockmapStorageKey: file.key, blockmapSize: file.size, blockmapSha256: file.sha256 })
        // Only while it has none: of two blockmaps sent at once, one wins and the other is refused.
        .where(and(eq(artifacts.id, owner.id), isNull(artifacts.blockmapStorageKey)))
        .returning();
      if (!row) throw new Invalid({ file: [`${owner.fileName} already has another blockmap.`] });
      if (file.uploadId !== undefined) await consumeUpload(tx.db, file.uploadId);
      return row;
    });
  return { artifact: await (received ? received.keepFor(attach) : attach()), created: true };
}

async function readText(ctx: Pick<AppContext, "releases">, key: string): Promise<string> {
  const body = ctx.releases.body(key, null, { plainStream: true });
  return new Response(body).text();
}

/**
 * Deletes one file of a version, with its blockmap, for whoever may publish to the product (others
 * who can see the product get 403, the rest 404). A version keeps at least one file: deleting its
 * last one is a 422 (delete the version instead), decided under the version's row lock so that two
 * deletes at once cannot both remove "the other" file.
 */
export async function deleteArtifact(
  ctx: Pick<AppContext, "db" | "releases" | "log">,
  actor: Actor,
  ids: { product: number; version: number; artifact: number },
): Promise<void> {
  const product = await findVisibleProduct(ctx, actor, ids.product);
  if (!mayPublish(actor, product)) throw new Forbidden();
  const keys = await withTransaction(ctx, async (tx) => {
    const [version] = await tx.db
      .select({ id: versions.id })
      .from(versions)
      .where(and(eq(versions.productId, product.id), eq(versions.id, ids.version)))
      .for("update");
    if (!version) throw new NotFound("Version");
    const [artifact] = await tx.db
      .select()
      .from(artifacts)
      .where(and(eq(artifacts.versionId, version.id), eq(artifacts.id, ids.artifact)));
    if (!artifact) throw new NotFound("Artifact");
    const [files] = await tx.db
      .select({ n: count() })
      .from(artifacts)
      .where(eq(artifacts.versionId, version.id));
    if ((files?.n ?? 0) <= 1) {
      throw new Invalid({ artifact: ["A version keeps at least one file; delete the version instead."] });
    }
    await tx.db.delete(artifacts).where(eq(artifacts.id, artifact.id));
    await feedChanged(tx, product.id);
    return storageKeysOf(artifact);
  });
  await removeFiles(ctx, keys);
}

/** A change to a file: its schema says it all. */
export const ArtifactChangeForm = form(ArtifactChangeBody, async () => {});

/**
 * Marks a file of a version for updaters only, or for people too, for whoever may publish to the
 * product (as editing the version: others who can see the product get 403, the rest 404). The file
 * people are handed (the version's `file_name`, its download) is chosen afresh on every read.
 */
export async function changeArtifact(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  ids: { product: number; version: number; artifact: number },
  change: ArtifactChange,
): Promise<{ artifact: Artifact; product: Product }> {
  const product = await findVisibleProduct(ctx, actor, ids.product);
  if (!mayPublish(actor, product)) throw new Forbidden();
  const artifact = await withTransaction(ctx, async (tx) => {
    const [version] = await tx.db
      .select({ id: versions.id })
      .from(versions)
      .where(and(eq(versions.productId, product.id), eq(versions.id, ids.version)));
    if (!version) throw new NotFound("Version");
    const [row] = await tx.db
      .update(artifacts)
      .set({ updatersOnly: change.updaters_only })
      .where(and(eq(artifacts.versionId, version.id), eq(artifacts.id, ids.artifact)))
      .returning();
    if (!row) throw new NotFound("Artifact");
    // The feeds offer the file either way, but the signed upgrade check answers the version's JSON
    // from the feed cache, and its file_name and download_url are the file for people.
    await feedChanged(tx, product.id);
    return row;
  });
  return { artifact, product };
}
