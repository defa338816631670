CREATE TABLE "uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" bigint NOT NULL,
	"length" bigint NOT NULL,
	"received" bigint DEFAULT 0 NOT NULL,
	"pieces" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"storage_key" text,
	"sha256" text,
	"consumed_at" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "uploads_expires_at_index" ON "uploads" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "uploads_storage_key_index" ON "uploads" USING btree ("storage_key") WHERE "uploads"."storage_key" IS NOT NULL;