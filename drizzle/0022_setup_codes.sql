CREATE TABLE "setup_codes" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "setup_codes_one_row_check" CHECK ("setup_codes"."id" = 1)
);
