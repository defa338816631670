import { t } from "elysia";

/** Every series the stats API answers, in the order it lists them. */
export const STAT_SERIES = [
  "validations",
  "activations",
  "deactivations",
  "machines",
  "downloads",
  "polls",
  "adoption",
  "rollouts",
] as const;
export type StatSeries = (typeof STAT_SERIES)[number];

/** `?from=&to=&series=&format=`: checked by the service, so each bad field gets its own 422 message. */
export const StatsQuery = t.Object({
  from: t.Optional(t.String({ description: "first day, YYYY-MM-DD (UTC); default 29 days before `to`" })),
  to: t.Optional(t.String({ description: "last day, YYYY-MM-DD (UTC); default today" })),
  series: t.Optional(
    t.String({ description: `comma-separated, any of ${STAT_SERIES.join(", ")}; default all of them` }),
  ),
  format: t.Optional(t.String({ description: "`json` (default) or `csv`: the same rows, one table" })),
});
export type StatsQuery = typeof StatsQuery.static;
