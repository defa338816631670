import { sql } from "drizzle-orm";
import { bigint, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { ref, timestamptz } from "./columns.ts";
import { users } from "./users.ts";

/**
 * A resumable upload (tus): a release file arriving over as many requests as the network needs. Its
 * bytes live in the release store's staging area until the last one arrives; the finished file is then
 * kept under `storage_key`, and one publish turns it into a version (`consumed_at`). The row stays
 * until it expires, so a retried publish still finds it; the expiry sweep removes it, with its file
 * unless a version took it.
 */
export const uploads = pgTable(
  "uploads",
  {
    /** A random UUID: the last segment of the upload's URL. */
    id: text("id").primaryKey(),
    /** Only its creator may see, continue, delete or publish it. */
    userId: ref("user_id")
      .notNull()
      .references(() => users.id),
    /** Upload-Length: the size of the whole file. */
    length: bigint("length", { mode: "number" }).notNull(),
    /** Upload-Offset: how many bytes have arrived and are stored. */
    received: bigint("received", { mode: "number" }).notNull().default(0),
    /** The staging pieces holding those bytes, in order (object storage; empty on disk). */
    pieces: jsonb("pieces").$type<string[]>().notNull().default([]),
    /** Upload-Metadata, decoded and kept as sent, so that HEAD can echo it. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    /** Set once every byte has arrived: the finished file's key and digest. */
    storageKey: text("storage_key"),
    sha256: text("sha256"),
    consumedAt: timestamptz("consumed_at"),
    /** Renewed by every PATCH; after it the upload answers 410 and the sweep removes it. */
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (table) => [
    index("uploads_expires_at_index").on(table.expiresAt),
    // The sweep's "is this key still an upload's?" question.
    index("uploads_storage_key_index").on(table.storageKey).where(sql`${table.storageKey} IS NOT NULL`),
    // Each new upload counts its user's open ones (MAX_OPEN_UPLOADS, features/uploads/service.ts).
    index("uploads_user_id_open_index").on(table.userId).where(sql`${table.consumedAt} IS NULL`),
  ],
);

export type UploadRow = typeof uploads.$inferSelect;
