ALTER TABLE "artifacts" ADD COLUMN "platform_inferred" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "artifacts" ADD COLUMN "arch_inferred" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "artifacts" ADD COLUMN "updaters_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Files stored before the mark: the updater-only kinds by name, as new files are marked.
UPDATE "artifacts" SET "updaters_only" = true WHERE "file_name" ~* '(-mac\.zip|\.app\.tar\.gz|\.appimage\.tar\.gz|\.(nsis|msi)\.zip|\.nupkg)$';
