import { t } from "elysia";
import type { StatSeries } from "./schemas.ts";

const Day = t.String({ description: "YYYY-MM-DD (UTC)" });
const ProductId = t.String({ description: "the product's id" });
const Count = t.Integer({ minimum: 0 });

/** One row of each series: a day, a product, what the series is counted by, and the count. */
export const StatRowJson = {
  validations: t.Object({ day: Day, product_id: ProductId, code: t.String(), count: Count }),
  activations: t.Object({ day: Day, product_id: ProductId, count: Count }),
  deactivations: t.Object({ day: Day, product_id: ProductId, count: Count }),
  machines: t.Object({ day: Day, product_id: ProductId, count: Count }),
  downloads: t.Object({
    day: Day,
    product_id: ProductId,
    version: t.String(),
    file: t.String(),
    count: Count,
  }),
  polls: t.Object({
    day: Day,
    product_id: ProductId,
    feed: t.String(),
    channel: t.String(),
    platform: t.String(),
    version: t.String({ description: "the client's version; '' where it did not say, `(other)` unknown" }),
    count: Count,
  }),
  adoption: t.Object({
    day: Day,
    product_id: ProductId,
    version: t.String(),
    clients: Count,
    share: t.Number({ description: "clients ÷ the product's clients that day, 0–1, four decimals" }),
  }),
  rollouts: t.Object({
    product_id: ProductId,
    version_id: t.String({ description: "the version's id" }),
    version: t.String(),
    percentage: t.Integer({ minimum: 0, maximum: 100, description: "the rollout now, its schedule applied" }),
    schedule: t.String({
      description: "the steps still to come, `at=percentage` joined by `;` (ISO times), '' for none",
    }),
    clients: t.Integer({ minimum: 0, description: "clients that reported this version from `from` to `to`" }),
    failed: t.Integer({
      minimum: 0,
      description: "of those, clients that later reported an older version of the product (a rollback)",
    }),
  }),
} satisfies Record<StatSeries, unknown>;

export type StatRow<S extends StatSeries> = (typeof StatRowJson)[S]["static"];

export const StatsJson = t.Object({
  from: Day,
  to: Day,
  scope: t.Union([t.Literal("all"), t.Literal("product"), t.Literal("own_licenses")], {
    description:
      "`all`: every product (GET /api/stats); `product`: the whole product; `own_licenses`: only the " +
      "caller's licenses of it (a customer: validations, activations, deactivations and machines; the " +
      "other series are empty)",
  }),
  series: t.Object({
    validations: t.Optional(t.Array(StatRowJson.validations)),
    activations: t.Optional(t.Array(StatRowJson.activations)),
    deactivations: t.Optional(t.Array(StatRowJson.deactivations)),
    machines: t.Optional(t.Array(StatRowJson.machines)),
    downloads: t.Optional(t.Array(StatRowJson.downloads)),
    polls: t.Optional(t.Array(StatRowJson.polls)),
    adoption: t.Optional(t.Array(StatRowJson.adoption)),
    rollouts: t.Optional(t.Array(StatRowJson.rollouts)),
  }),
});
export type StatsJson = typeof StatsJson.static;

/** The CSV's columns: every series' fields, `series` first; a field a series does not have is empty. */
export const CSV_COLUMNS = [
  "series",
  "day",
  "product_id",
  "version_id",
  "code",
  "version",
  "file",
  "feed",
  "channel",
  "platform",
  "count",
  "clients",
  "share",
  "percentage",
  "schedule",
  "failed",
] as const;

/**
 * One cell. Text a spreadsheet would run as a formula (first character =, +, -, @, tab or CR) gets a
 * leading ' so it shows as text: file names, versions and channels are whoever named them, and a
 * vendor opens this file in Excel (OWASP, "CSV Injection"). Numbers are written as they are.
 */
const csvCell = (value: unknown) => {
  let text = value === undefined ? "" : String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(value)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The same rows as the JSON, one table (RFC 4180, CRLF line ends), series by series. */
export function toStatsCsv(stats: StatsJson): string {
  const lines = [CSV_COLUMNS.join(",")];
  for (const [series, rows] of Object.entries(stats.series)) {
    for (const row of rows ?? []) {
      const cells: Record<string, unknown> = { series, ...row };
      lines.push(CSV_COLUMNS.map((column) => csvCell(cells[column])).join(","));
    }
  }
  return `${lines.join("\r\n")}\r\n`;
}
