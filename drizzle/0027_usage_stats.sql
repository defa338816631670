CREATE TABLE "update_clients" (
	"day" date NOT NULL,
	"product_id" bigint NOT NULL,
	"client" text NOT NULL,
	"current_version" text NOT NULL,
	CONSTRAINT "update_clients_product_id_day_client_pk" PRIMARY KEY("product_id","day","client")
);
--> statement-breakpoint
CREATE TABLE "usage_days" (
	"day" date NOT NULL,
	"product_id" bigint NOT NULL,
	"series" text NOT NULL,
	"license_id" text DEFAULT '' NOT NULL,
	"version" text DEFAULT '' NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "usage_days_product_id_day_series_license_id_version_detail_pk" PRIMARY KEY("product_id","day","series","license_id","version","detail")
);
--> statement-breakpoint
ALTER TABLE "update_clients" ADD CONSTRAINT "update_clients_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_days" ADD CONSTRAINT "usage_days_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;