-- The versions table loses its file columns: artifacts (0014) hold every file, the first one included.
ALTER TABLE "versions" DROP COLUMN "file_name";--> statement-breakpoint
ALTER TABLE "versions" DROP COLUMN "file_size";--> statement-breakpoint
ALTER TABLE "versions" DROP COLUMN "content_type";--> statement-breakpoint
ALTER TABLE "versions" DROP COLUMN "sha256";--> statement-breakpoint
ALTER TABLE "versions" DROP COLUMN "storage_key";