import { and, count, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { type UploadRow, uploads, users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError, Invalid, NotFound, PayloadTooLarge } from "../../errors.ts";
import { mediaTypeOrDefault } from "../../http/media-type.ts";
import { uploadStorageKey } from "../../storage/staging.ts";
import { cleanFileName } from "../../validation/file-name.ts";
import { isUuid } from "../../validation/ids.ts";
import type { Actor } from "../auth/actor.ts";
import type { UploadedFile } from "../versions/upload.ts";
import { ChecksumMismatch } from "./tus.ts";

type UploadsContext = Pick<AppContext, "db" | "releases" | "config">;

const expiresFromNow = (ctx: Pick<AppContext, "config">) =>
  new Date(Date.now() + ctx.config.uploadExpiryHours * 3600 * 1000);

/**
 * A new upload of `length` bytes owned by the caller; its file name and type come from the metadata
 * (`filename`, `filetype`), as tus clients send them. Longer than MAX_UPLOAD_BYTES, or than the
 * release store's free space, is a 413; so is one past the caller's MAX_OPEN_UPLOAD_BYTES, and one
 * past MAX_OPEN_UPLOADS is a 429 (requireRoomForUpload).
 */
export async function createUpload(
  ctx: UploadsContext,
  actor: Actor,
  length: number,
  metadata: Record<string, string>,
): Promise<UploadRow> {
  const max = ctx.config.maxUploadBytes;
  if (length > max) throw new PayloadTooLarge(`The file may not be greater than ${max} bytes.`);
  const free = await ctx.releases.freeBytes();
  if (free !== null && length > free) {
    throw new PayloadTooLarge(`There is not enough storage space left for a file of ${length} bytes.`);
  }
  const row = await withTransaction(ctx, async (tx) => {
    await requireRoomForUpload(tx, actor.user.id, length);
    const [inserted] = await tx.db
      .insert(uploads)
      .values({
        id: crypto.randomUUID(),
        userId: actor.user.id,
        length,
        metadata,
        fileName: cleanFileName(metadata.filename),
        contentType: mediaTypeOrDefault(metadata.filetype),
        expiresAt: expiresFromNow(ctx),
      })
      .returning();
    return inserted;
  });
  if (!row) throw new Error("upload insert returned nothing");
  try {
    await ctx.releases.staging.create(row.id);
  } catch (error) {
    await ctx.db.delete(uploads).where(eq(uploads.id, row.id));
    throw error;
  }
  return finishIfComplete(ctx, row); // an empty file is complete at once
}

/**
 * Whether the user's open uploads (neither published nor expired: their bytes wait in the release
 * store) leave room for one more of `length` declared bytes: at most MAX_OPEN_UPLOADS of them (429)
 * declaring at most MAX_OPEN_UPLOAD_BYTES together (413). Inside the creating transaction, with the
 * user's row locked first, so that two creations at once are counted one after the other and cannot
 * both slip past a limit.
 */
async function requireRoomForUpload(tx: UploadsContext, userId: number, length: number): Promise<void> {
  await tx.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  const [open] = await tx.db
    .select({ uploads: count(), bytes: sql<string>`coalesce(sum(${uploads.length}), 0)::text` })
    .from(uploads)
    .where(and(eq(uploads.userId, userId), isNull(uploads.consumedAt), gt(uploads.expiresAt, new Date())));
  const { maxOpenUploads, maxOpenUploadBytes } = tx.config;
  const openUploads = open?.uploads ?? 0;
  if (openUploads >= maxOpenUploads) {
    throw new AppError(
      429,
      `You already have ${openUploads} open uploads; one user may have at most ${maxOpenUploads}. Publish or delete one (or let it expire) first.`,
    );
  }
  const declared = Number(open?.bytes ?? 0) + length;
  if (declared > maxOpenUploadBytes) {
    throw new PayloadTooLarge(
      `Your open uploads would declare ${declared} bytes, more than the ${maxOpenUploadBytes} one user may have open. Publish or delete one (or let it expire) first.`,
    );
  }
}

/** The caller's own upload; anyone else's is as unknown as one that never existed. */
export async function findOwnUpload(ctx: Pick<AppContext, "db">, actor: Actor, id: string) {
  const [row] = await ctx.db
    .select()
    .from(uploads)
    .where(and(eq(uploads.id, id), eq(uploads.userId, actor.user.id)));
  if (!row) throw new NotFound("Upload");
  return row;
}

/** An upload past its expiry answers 410 until the sweep removes it (then 404). */
export function requireUnexpired(row: UploadRow): UploadRow {
  if (row.consumedAt === null && row.expiresAt.getTime() <= Date.now()) {
    throw new AppError(410, "The upload has expired.");
  }
  return row;
}

/**
 * Stores `body` as the upload's bytes from `offset` on and commits the new offset. The offset must
 * be the upload's (409 otherwise, also when another request moved it meanwhile); past the declared
 * length is a 413; with `checksum` (hex SHA-256) the bytes must match it (460) and a body that broke
 * off counts for nothing. The last byte finishes the upload.
 */
export async function appendChunk(
  ctx: UploadsContext,
  row: UploadRow,
  offset: number,
  body: AsyncIterable<Uint8Array>,
  checksum: string | null,
): Promise<UploadRow> {
  if (offset !== row.received) throw offsetConflict(row.received);
  const staging = ctx.releases.staging;
  const chunk = await staging.write(row.id, offset, body, {
    limit: row.length - offset,
    hash: checksum !== null,
  });
  if (checksum !== null && (!chunk.complete || chunk.sha256 !== checksum)) {
    await staging.drop(chunk);
    throw new ChecksumMismatch();
  }
  if (chunk.size === 0) {
    await staging.drop(chunk);
    return row;
  }
  const [updated] = await ctx.db
    .update(uploads)
    .set({
      received: offset + chunk.size,
      expiresAt: expiresFromNow(ctx),
      ...(chunk.piece === null
        ? {}
        : { pieces: sql`${uploads.pieces} || ${JSON.stringify([chunk.piece])}::jsonb` }),
    })
    .where(and(eq(uploads.id, row.id), eq(uploads.received, offset), isNull(uploads.storageKey)))
    .returning();
  if (!updated) {
    // Another request for the same offset committed first (a client resuming while its old request
    // was still being read): these bytes are not the upload's.
    await staging.drop(chunk);
    const [current] = await ctx.db.select().from(uploads).where(eq(uploads.id, row.id));
    if (!current) throw new NotFound("Upload");
    throw offsetConflict(current.received);
  }
  return finishIfComplete(ctx, updated);
}

const offsetConflict = (received: number) =>
  new AppError(409, `Upload-Offset does not match the upload's offset, ${received}.`, {
    "upload-offset": String(received),
  });

/**
 * Once every byte has arrived: the staged bytes become one file kept under the upload's key, with its
 * digest. Also called by publishing, so that an upload whose last request failed while finishing
 * (the store down) is finished by the next attempt.
 */
export async function finishIfComplete(ctx: UploadsContext, row: UploadRow): Promise<UploadRow> {
  if (row.received < row.length || row.storageKey !== null) return row;
  const key = uploadStorageKey(row.id);
  const file = await ctx.releases.staging.finish(row.id, row.pieces, row.length, key);
  const [finished] = await ctx.db
    .update(uploads)
    .set({ storageKey: file.key, sha256: file.sha256 })
    .where(and(eq(uploads.id, row.id), isNull(uploads.storageKey)))
    .returning();
  return finished ?? row;
}

/**
 * Removes an upload with its staged bytes and its finished file, unless a version was published from
 * it: that file is the version's now and stays.
 */
export async function removeUpload(ctx: UploadsContext, row: UploadRow): Promise<void> {
  await ctx.releases.staging.remove(row.id);
  if (row.storageKey !== null && row.consumedAt === null) await ctx.releases.remove(row.storageKey);
  await ctx.db.delete(uploads).where(eq(uploads.id, row.id));
}

/** Removes expired uploads, a hundred at a time; returns how many. */
export async function sweepExpiredUploads(ctx: UploadsContext, now = new Date()): Promise<number> {
  let removed = 0;
  for (;;) {
    const expired = await ctx.db.select().from(uploads).where(lt(uploads.expiresAt, now)).limit(100);
    for (const row of expired) await removeUpload(ctx, row);
    removed += expired.length;
    if (expired.length < 100) return removed;
  }
}

/**
 * The finished upload a publish names in `upload_id`, as the file to publish (422 on `upload_id` when
 * it is not the caller's, not finished or expired). An upload already published still answers, so
 * that a retried publish of the same version is recognised; publishing it as another is refused when
 * the version is inserted (`consumeUpload`).
 */
export async function uploadedFile(ctx: UploadsContext, actor: Actor, raw: unknown): Promise<UploadedFile> {
  const invalid = (message: string) => new Invalid({ upload_id: [message] });
  if (typeof raw !== "string" || !isUuid(raw)) throw invalid("The upload id must be a UUID.");
  const row = await findOwnUpload(ctx, actor, raw).catch(() => null);
  if (!row) throw invalid("The selected upload id is invalid.");
  if (row.consumedAt === null && row.expiresAt.getTime() <= Date.now())
    throw invalid("The upload has expired.");
  if (row.received < row.length) {
    throw invalid(`The upload is not finished: ${row.received} of ${row.length} bytes have arrived.`);
  }
  const finished = await finishIfComplete(ctx, row);
  if (finished.storageKey === null || finished.sha256 === null)
    throw new Error("finished upload without a file");
  // Not there (a restored backup holds published releases only): the version would be a 410.
  if (finished.consumedAt === null && (await ctx.releases.size(finished.storageKey)) !== finished.length) {
    throw invalid("The upload's file is gone; upload it again.");
  }
  return {
    key: finished.storageKey,
    size: finished.length,
    sha256: finished.sha256,
    sha512: await sha512Of(ctx, finished.storageKey),
    fileName: finished.fileName,
    contentType: finished.contentType,
    uploadId: finished.id,
  };
}

/**
 * The stored file's base64 SHA-512, read back from the store: a resumable upload arrives over many
 * requests, and only SHA-256 is carried from one to the next.
 */
export async function sha512Of(ctx: Pick<AppContext, "releases">, key: string): Promise<string> {
  const hash = new Bun.CryptoHasher("sha512");
  const body = ctx.releases.body(key, null, { plainStream: true });
  const stream = body instanceof Blob ? body.stream() : body;
  for await (const chunk of stream) hash.update(chunk);
  return hash.digest("base64");
}

/** Marks the upload published, inside the version's transaction; a 422 if another publish took it. */
export async function consumeUpload(db: Db, id: string): Promise<void> {
  const taken = await db
    .update(uploads)
    .set({ consumedAt: new Date() })
    .where(and(eq(uploads.id, id), isNull(uploads.consumedAt)))
    .returning({ id: uploads.id });
  if (taken.length === 0) throw new Invalid({ upload_id: ["The upload has already been published."] });
}
