CREATE TABLE "update_checks" (
	"day" date NOT NULL,
	"product_id" bigint NOT NULL,
	"feed" text NOT NULL,
	"channel" text NOT NULL,
	"platform" text NOT NULL,
	"current_version" text NOT NULL,
	"checks" bigint NOT NULL,
	CONSTRAINT "update_checks_product_id_day_feed_channel_platform_current_version_pk" PRIMARY KEY("product_id","day","feed","channel","platform","current_version")
);
--> statement-breakpoint
ALTER TABLE "update_checks" ADD CONSTRAINT "update_checks_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;