import { bigint, boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { id, ref, timestamptz } from "./columns.ts";
import { ARCHES, PLATFORMS } from "./release-enums.ts";
import { versions } from "./versions.ts";

/**
 * One file of a version, for one platform and architecture (`any` for a file every platform takes).
 * The version's first artifact (lowest id) is the file SPEC's Version describes and its download
 * URL serves. A `X.blockmap` or `X.sig` sent for the version is no artifact of its own: it is kept on
 * the artifact `X` (electron-updater's differential download, Tauri's and Sparkle's signatures).
 */
export const artifacts = pgTable(
  "artifacts",
  {
    id: id(),
    versionId: ref("version_id")
      .notNull()
      .references(() => versions.id, { onDelete: "cascade" }),
    platform: text("platform", { enum: PLATFORMS }).notNull(),
    arch: text("arch", { enum: ARCHES }).notNull(),
    /** The request named no platform: depot read it from the file's name (features/artifacts/file-names.ts). */
    platformInferred: boolean("platform_inferred").notNull().default(false),
    /** The request named no arch: depot read it from the file's name. */
    archInferred: boolean("arch_inferred").notNull().default(false),
    fileName: text("file_name").notNull(),
    /**
     * A file for updaters, not for people (electron's `-mac.zip`, Tauri's `.app.tar.gz`): the feeds
     * offer it, the download pages and e-mails' links do not (features/artifacts/file-names.ts).
     */
    updatersOnly: boolean("updaters_only").notNull().default(false),
    fileSize: bigint("file_size", { mode: "number" }).notNull(),
    /** Hex SHA-256 of the file: the ETag, the Repr-Digest and the identical re-post check. */
    sha256: text("sha256").notNull(),
    /**
     * Base64 SHA-512, as electron-updater checks it. Null only for files stored before artifacts
     * existed, until the start-up backfill has read them (features/artifacts/sha512-backfill.ts).
     */
    sha512: text("sha512"),
    contentType: text("content_type").notNull(),
    /** Where the file lives in the release store (relative to STORAGE_DIR, or the bucket's key). */
    storageKey: text("storage_key").notNull(),
    /** The `.sig` text as the vendor's tool wrote it (minisign for Tauri, Ed25519 base64 for Sparkle). */
    signature: text("signature"),
    /** electron-builder's `X.blockmap`, stored beside the file. */
    blockmapStorageKey: text("blockmap_storage_key"),
    blockmapSize: bigint("blockmap_size", { mode: "number" }),
    blockmapSha256: text("blockmap_sha256"),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("artifacts_version_platform_arch_name_unique").on(
      table.versionId,
      table.platform,
      table.arch,
      table.fileName,
    ),
    // The leftovers sweep and backups ask "is this key a release file's?".
    index("artifacts_storage_key_index").on(table.storageKey),
    index("artifacts_blockmap_storage_key_index").on(table.blockmapStorageKey),
  ],
);

export type Artifact = typeof artifacts.$inferSelect;
export type NewArtifact = typeof artifacts.$inferInsert;
