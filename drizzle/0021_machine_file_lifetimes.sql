ALTER TABLE "licenses" ADD COLUMN "machine_file_ttl_max" integer;--> statement-breakpoint
ALTER TABLE "machines" ADD COLUMN "file_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "machine_file_ttl_max" integer;--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_machine_file_ttl_max_check" CHECK ("licenses"."machine_file_ttl_max" IS NULL OR "licenses"."machine_file_ttl_max" BETWEEN 3600 AND 31536000);--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_machine_file_ttl_max_check" CHECK ("products"."machine_file_ttl_max" IS NULL OR "products"."machine_file_ttl_max" BETWEEN 3600 AND 31536000);