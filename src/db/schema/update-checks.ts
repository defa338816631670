import { bigint, date, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ref } from "./columns.ts";
import { products } from "./products.ts";

/**
 * How many times a day updaters asked a product's feeds, by feed, channel, platform and the version
 * the client runs (where it says it: Tauri, Squirrel and the upgrade check in the URL, Sparkle in its
 * User-Agent, electron-updater in `x-app-version`; '' otherwise). Version adoption counts clients, not
 * polls: update_clients. Counted in memory and added in batches (features/updates/check-counter.ts).
 */
export const updateChecks = pgTable(
  "update_checks",
  {
    day: date("day", { mode: "string" }).notNull(),
    productId: ref("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    /** `electron`, `tauri`, `sparkle`, `squirrel` or `upgrade`. */
    feed: text("feed").notNull(),
    /** The channel asked for ('' where the feed serves every channel at once: Sparkle). */
    channel: text("channel").notNull(),
    /** `windows`, `darwin` or `linux`. */
    platform: text("platform").notNull(),
    /** The client's own version, a semver name, or '' where the feed does not say it. */
    currentVersion: text("current_version").notNull(),
    checks: bigint("checks", { mode: "number" }).notNull(),
  },
  (table) => [
    primaryKey({
      columns: [table.productId, table.day, table.feed, table.channel, table.platform, table.currentVersion],
    }),
  ],
);

export type UpdateCheck = typeof updateChecks.$inferSelect;
