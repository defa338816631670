import type { AppContext } from "../../context.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { withTransaction } from "../../db/transaction.ts";
import { consumeUpload } from "../uploads/service.ts";
import type { ReceivedUpload, UploadedFile } from "../versions/upload.ts";

/** How one kind of row is made from a received file, at most once: publishing a version, adding a file. */
export interface OnceOnly<Row> {
  /** The row an earlier request for the same thing made, if there is one. */
  existing(): Promise<Row | null>;
  /** That row as the answer to a retry (the same file again), or a 422 when the file is another one. */
  again(existing: Row): Row;
  /** Inserts the row inside the transaction; a unique key must refuse a second one. */
  insert(tx: Pick<AppContext, "db">): Promise<Row>;
}

/**
 * Makes the row(s) that keep a received file, once. The same request again (a pipeline retrying) finds
 * the row it made; of two sent at once, the loser's insert hits the unique key and it finds the winner's;
 * either way `again` answers. The insert's transaction also takes a finished resumable upload's file from
 * the upload, and the file the request carried is kept only if that transaction commits (`keepFor`).
 */
export async function insertOnce<Row>(
  ctx: Pick<AppContext, "db">,
  file: UploadedFile,
  received: ReceivedUpload | null,
  once: OnceOnly<Row>,
): Promise<{ row: Row; created: boolean }> {
  const existing = await once.existing();
  if (existing) return { row: once.again(existing), created: false };
  const insert = () =>
    withTransaction(ctx, async (tx) => {
      const row = await once.insert(tx);
      // A finished resumable upload's file is already in place; the new row takes it from the upload.
      if (file.uploadId !== undefined) await consumeUpload(tx.db, file.uploadId);
      return row;
    });
  try {
    return { row: await (received ? received.keepFor(insert) : insert()), created: true };
  } catch (error) {
    // Two identical requests raced: the loser answers like a retry would.
    const winner = isUniqueViolation(error) ? await once.existing() : null;
    if (winner) return { row: once.again(winner), created: false };
    throw error;
  }
}
