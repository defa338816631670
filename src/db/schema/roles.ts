import { jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { id, timestamps } from "./columns.ts";

/** Seeded with admin ["*"], vendor ["versions.publish"], customer [] by a migration. */
export const roles = pgTable("roles", {
  id: id(),
  name: text("name").notNull().unique(),
  permissions: jsonb("permissions").$type<string[]>().notNull().default([]),
  ...timestamps,
});

export type Role = typeof roles.$inferSelect;
