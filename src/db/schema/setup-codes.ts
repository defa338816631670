import { sql } from "drizzle-orm";
import { check, pgTable, smallint, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * The first-run setup code (features/setup/code.ts): one row, the code's SHA-256 and when it stops
 * working, never the code. In the database, so every instance and process on it accepts the code
 * the last start (or `depot setup:link`) printed; each new code replaces the row.
 */
export const setupCodes = pgTable(
  "setup_codes",
  {
    /** Always 1: there is one code at a time. */
    id: smallint("id").primaryKey().default(1),
    codeHash: text("code_hash").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: timestamptz("created_at").notNull().defaultNow(),
  },
  (table) => [check("setup_codes_one_row_check", sql`${table.id} = 1`)],
);
