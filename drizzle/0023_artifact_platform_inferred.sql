ALTER TABLE "artifacts" ADD COLUMN "platform_inferred" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "artifacts" ADD COLUMN "arch_inferred" boolean DEFAULT false NOT NULL;