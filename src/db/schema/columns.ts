import { bigint, timestamp } from "drizzle-orm/pg-core";

/** Laravel-style bigint primary key, read as a JS number (ids stay far below 2^53). */
export const id = () => bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity();

/** A bigint foreign key column, read as a JS number. */
export const ref = (name: string) => bigint(name, { mode: "number" });

export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const timestamps = {
  createdAt: timestamptz("created_at").notNull().defaultNow(),
  updatedAt: timestamptz("updated_at")
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};
