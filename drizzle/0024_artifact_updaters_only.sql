ALTER TABLE "artifacts" ADD COLUMN "updaters_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
UPDATE "artifacts" SET "updaters_only" = true WHERE "file_name" ~* '(-mac\.zip|\.app\.tar\.gz|\.appimage\.tar\.gz|\.(nsis|msi)\.zip|\.nupkg)$';
