CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"public_key" text NOT NULL,
	"sealed_private_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"activated_at" timestamp with time zone,
	"retired_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_active_index" ON "signing_keys" USING btree (("retired_at" IS NULL)) WHERE "signing_keys"."retired_at" IS NULL AND "signing_keys"."activated_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_next_index" ON "signing_keys" USING btree (("activated_at" IS NULL)) WHERE "signing_keys"."activated_at" IS NULL;