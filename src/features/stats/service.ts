// The stats API's logic: who sees which counts (scope), the query's days and series, and the rows.
import { and, eq, gte, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { selectRows } from "../../db/rows.ts";
import { licenses, updateChecks, updateClients, usageDays, versions } from "../../db/schema/index.ts";
import { FieldErrors, Forbidden } from "../../errors.ts";
import type { Actor } from "../auth/actor.ts";
import { allows } from "../auth/permissions.ts";
import { mayManageLicenses } from "../licenses/product-licenses.ts";
import { findVisibleProduct } from "../products/service.ts";
import { effectiveRollout } from "../versions/eligible.ts";
import type { StatRow, StatsJson } from "./json.ts";
import { STAT_SERIES, type StatSeries, type StatsQuery } from "./schemas.ts";

/** Whose counts a request sees. */
export type StatsScope =
  | { kind: "all" }
  | { kind: "product"; productId: number }
  | { kind: "own_licenses"; productId: number; licenseIds: string[] };

/** The series a customer sees of their own licenses; the others are not tied to a license. */
const LICENSE_SERIES: ReadonlySet<StatSeries> = new Set([
  "validations",
  "activations",
  "deactivations",
  "machines",
]);

/** Days of adoption's window: a client counts for a day if it polled in the 7 days ending then. */
export const ADOPTION_WINDOW_DAYS = 7;

/** GET /api/stats: every product, for products.manage (admins). */
export function everyProductScope(actor: Actor): StatsScope {
  if (!allows(actor.permissions, "products.manage")) throw new Forbidden();
  return { kind: "all" };
}

/**
 * GET /api/products/{p}/stats: the whole product for whoever manages its licenses (its owners,
 * products.manage); the caller's own licenses of it for a customer holding one; else 403 (404 for a
 * product they may not see at all, as reading it answers).
 */
export async function productScope(
  ctx: Pick<AppContext, "db">,
  actor: Actor,
  id: number,
): Promise<StatsScope> {
  const product = await findVisibleProduct(ctx, actor, id);
  if (mayManageLicenses(actor, product)) return { kind: "product", productId: product.id };
  const held = await ctx.db
    .select({ id: licenses.id })
    .from(licenses)
    .where(and(eq(licenses.productId, product.id), eq(licenses.userId, actor.user.id)));
  if (held.length === 0) throw new Forbidden();
  return { kind: "own_licenses", productId: product.id, licenseIds: held.map(({ id }) => id) };
}

export interface StatsRequest {
  from: string;
  to: string;
  series: StatSeries[];
  format: "json" | "csv";
}

const DATE = /^\d{4}-\d\d-\d\d$/;
/** A real calendar day (2026-02-30 is not one: Date would roll it over to March). */
const isDay = (text: string) => {
  const time = Date.parse(`${text}T00:00:00Z`);
  return DATE.test(text) && !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
};
const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (day: string, days: number) =>
  dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

/** The query checked: each bad field its own 422 message; from/to default to the last 30 days. */
export function statsRequest(query: StatsQuery, maxDays: number, now = new Date()): StatsRequest {
  const errors = new FieldErrors();
  const to = query.to ?? dayOf(now);
  if (!isDay(to)) errors.add("to", "The to field must be a date, YYYY-MM-DD.");
  const from = query.from ?? addDays(isDay(to) ? to : dayOf(now), -29);
  if (!isDay(from)) errors.add("from", "The from field must be a date, YYYY-MM-DD.");
  else if (isDay(to) && from > to) errors.add("from", "The from field must be a day before or equal to to.");
  // STATS_RETENTION_DAYS=0 keeps nothing: any range answers empty series.
  else if (isDay(to) && maxDays > 0 && from < addDays(to, -(maxDays - 1))) {
    errors.add("from", `The from field may be at most ${maxDays} days before to (STATS_RETENTION_DAYS).`);
  }
  const names = query.series === undefined ? [...STAT_SERIES] : query.series.split(",").map((s) => s.trim());
  const unknown = names.filter((name) => !(STAT_SERIES as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    errors.add("series", `The series field must list some of ${STAT_SERIES.join(", ")}.`);
  }
  const format = query.format ?? "json";
  if (format !== "json" && format !== "csv") errors.add("format", "The format field must be json or csv.");
  errors.throwIfAny();
  return { from, to, series: [...new Set(names)] as StatSeries[], format: format as "json" | "csv" };
}

/** The series asked for, in STAT_SERIES order, each sorted by day, product, then what it is counted by. */
export async function readStats(
  ctx: Pick<AppContext, "db">,
  scope: StatsScope,
  request: StatsRequest,
): Promise<StatsJson> {
  const series: StatsJson["series"] = {};
  for (const name of STAT_SERIES) {
    if (!request.series.includes(name)) continue;
    if (scope.kind === "own_licenses" && !LICENSE_SERIES.has(name)) {
      series[name] = [];
      continue;
    }
    // biome-ignore lint/suspicious/noExplicitAny: each reader answers its own series' rows.
    (series as any)[name] = await READERS[name](ctx, scope, request);
  }
  return { from: request.from, to: request.to, scope: scope.kind, series };
}

type Reader<S extends StatSeries> = (
  ctx: Pick<AppContext, "db">,
  scope: StatsScope,
  request: StatsRequest,
) => Promise<StatRow<S>[]>;

/** usage_days rows of one series in the scope and days. */
function usageWhere(scope: StatsScope, request: StatsRequest, series: string): SQL | undefined {
  return and(
    eq(usageDays.series, series),
    gte(usageDays.day, request.from),
    lte(usageDays.day, request.to),
    scope.kind === "all" ? undefined : eq(usageDays.productId, scope.productId),
    scope.kind === "own_licenses" ? inArray(usageDays.licenseId, scope.licenseIds) : undefined,
  );
}

const total = sql<string>`sum(${usageDays.count})`;

/** A per-product daily total of one usage series (licenses added together). */
const dailyTotal =
  <S extends "activations" | "deactivations" | "machines">(series: S): Reader<S> =>
  async (ctx, scope, request) =>
    (
      await ctx.db
        .select({ day: usageDays.day, productId: usageDays.productId, count: total })
        .from(usageDays)
        .where(usageWhere(scope, request, series))
        .groupBy(usageDays.day, usageDays.productId)
        .orderBy(usageDays.day, usageDays.productId)
    ).map((row) => ({ day: row.day, product_id: String(row.productId), count: Number(row.count) }));

const READERS: { [S in StatSeries]: Reader<S> } = {
  validations: async (ctx, scope, request) =>
    (
      await ctx.db
        .select({ day: usageDays.day, productId: usageDays.productId, code: usageDays.detail, count: total })
        .from(usageDays)
        .where(usageWhere(scope, request, "validations"))
        .groupBy(usageDays.day, usageDays.productId, usageDays.detail)
        .orderBy(usageDays.day, usageDays.productId, usageDays.detail)
    ).map((row) => ({
      day: row.day,
      product_id: String(row.productId),
      code: row.code,
      count: Number(row.count),
    })),
  activations: dailyTotal("activations"),
  deactivations: dailyTotal("deactivations"),
  machines: dailyTotal("machines"),
  downloads: async (ctx, scope, request) =>
    (
      await ctx.db
        .select({
          day: usageDays.day,
          productId: usageDays.productId,
          version: usageDays.version,
          file: usageDays.detail,
          count: total,
        })
        .from(usageDays)
        .where(usageWhere(scope, request, "downloads"))
        .groupBy(usageDays.day, usageDays.productId, usageDays.version, usageDays.detail)
        .orderBy(usageDays.day, usageDays.productId, usageDays.version, usageDays.detail)
    ).map((row) => ({
      day: row.day,
      product_id: String(row.productId),
      version: row.version,
      file: row.file,
      count: Number(row.count),
    })),
  polls: async (ctx, scope, request) =>
    (
      await ctx.db
        .select()
        .from(updateChecks)
        .where(
          and(
            gte(updateChecks.day, request.from),
            lte(updateChecks.day, request.to),
            scope.kind === "all" ? undefined : eq(updateChecks.productId, scope.productId),
          ),
        )
        .orderBy(
          updateChecks.day,
          updateChecks.productId,
          updateChecks.feed,
          updateChecks.channel,
          updateChecks.platform,
          updateChecks.currentVersion,
        )
    ).map((row) => ({
      day: row.day,
      product_id: String(row.productId),
      feed: row.feed,
      channel: row.channel,
      platform: row.platform,
      version: row.currentVersion,
      count: row.checks,
    })),
  adoption: readAdoption,
  rollouts: readRollouts,
};

/**
 * Version adoption: for each day, the clients seen in the ADOPTION_WINDOW_DAYS ending that day, each
 * counted once under the version it reported last; `share` is of the product's clients that day.
 */
async function readAdoption(
  ctx: Pick<AppContext, "db">,
  scope: StatsScope,
  request: StatsRequest,
): Promise<StatRow<"adoption">[]> {
  const product = scope.kind === "all" ? sql`TRUE` : sql`c.product_id = ${scope.productId}`;
  const list = await selectRows<{ day: string; product_id: string; version: string; clients: string }>(
    ctx.db,
    sql`
    SELECT to_char(d.day, 'YYYY-MM-DD') AS day, x.product_id::text AS product_id,
           x.current_version AS version, count(*)::bigint AS clients
    FROM generate_series(${request.from}::date, ${request.to}::date, interval '1 day') AS d(day)
    CROSS JOIN LATERAL (
      SELECT DISTINCT ON (c.product_id, c.client) c.product_id, c.current_version
      FROM ${updateClients} c
      WHERE c.day BETWEEN d.day::date - ${ADOPTION_WINDOW_DAYS - 1}::int AND d.day::date AND ${product}
      ORDER BY c.product_id, c.client, c.day DESC
    ) x
    GROUP BY d.day, x.product_id, x.current_version
    ORDER BY d.day, x.product_id, x.current_version`,
  );
  const totals = new Map<string, number>();
  for (const row of list) {
    const id = `${row.day} ${row.product_id}`;
    totals.set(id, (totals.get(id) ?? 0) + Number(row.clients));
  }
  return list.map((row) => {
    const clients = Number(row.clients);
    const all = totals.get(`${row.day} ${row.product_id}`) ?? clients;
    return {
      day: row.day,
      product_id: row.product_id,
      version: row.version,
      clients,
      share: Math.round((clients / all) * 10_000) / 10_000,
    };
  });
}

/**
 * Live rollouts: published versions offered to fewer than every client now (their schedule applied),
 * with the steps still to come, how many clients reported running each from `from` to `to`, and how
 * many of those reported an older version of the product on a later day (they went back: a failed
 * update or a reinstall). update_clients keeps a client's last version of each day, so a return
 * within the day it updated is not seen.
 */
async function readRollouts(
  ctx: Pick<AppContext, "db">,
  scope: StatsScope,
  request: StatsRequest,
): Promise<StatRow<"rollouts">[]> {
  const now = new Date();
  const candidates = await ctx.db
    .select({
      id: versions.id,
      productId: versions.productId,
      versionNumber: versions.versionNumber,
      rolloutPercentage: versions.rolloutPercentage,
      rolloutSchedule: versions.rolloutSchedule,
    })
    .from(versions)
    .where(
      and(
        eq(versions.status, "published"),
        sql`(${versions.rolloutPercentage} < 100 OR ${versions.rolloutSchedule} IS NOT NULL)`,
        scope.kind === "all" ? undefined : eq(versions.productId, scope.productId),
      ),
    )
    .orderBy(versions.productId, versions.id);
  const live = candidates.filter((version) => effectiveRollout(version, now) < 100);
  if (live.length === 0) return [];
  const ids = live.map((version) => version.id);
  // Per live version: the clients that reported it, and those of them seen later on an older one
  // (lower semver precedence; by publishing order where either name is not semver).
  const counts = await selectRows<{ id: string; clients: string; failed: string }>(
    ctx.db,
    sql`
    WITH took AS (
      SELECT v.id, v.product_id, v.semver_key, c.client, min(c.day) AS first_day
      FROM ${versions} v
      JOIN ${updateClients} c ON c.product_id = v.product_id AND c.current_version = v.version_number
      WHERE v.id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )}) AND c.day BETWEEN ${request.from}::date AND ${request.to}::date
      GROUP BY v.id, v.product_id, v.semver_key, c.client
    )
    SELECT t.id::text AS id, count(*)::bigint AS clients,
      count(*) FILTER (WHERE EXISTS (
        SELECT 1 FROM ${updateClients} b
        JOIN ${versions} o ON o.product_id = b.product_id AND o.version_number = b.current_version
        WHERE b.product_id = t.product_id AND b.client = t.client
          AND b.day > t.first_day AND b.day <= ${request.to}::date
          AND CASE WHEN o.semver_key IS NOT NULL AND t.semver_key IS NOT NULL
                   THEN o.semver_key COLLATE "C" < t.semver_key COLLATE "C"
                   ELSE o.id < t.id END
      ))::bigint AS failed
    FROM took t
    GROUP BY t.id`,
  );
  const byId = new Map(counts.map((row) => [row.id, row]));
  return live.map((version) => {
    const count = byId.get(String(version.id));
    return {
      product_id: String(version.productId),
      version_id: String(version.id),
      version: version.versionNumber,
      percentage: effectiveRollout(version, now),
      schedule: (version.rolloutSchedule ?? [])
        .filter((step) => Date.parse(step.at) > now.getTime())
        .map((step) => `${new Date(step.at).toISOString()}=${step.percentage}`)
        .join(";"),
      clients: Number(count?.clients ?? 0),
      failed: Number(count?.failed ?? 0),
    };
  });
}
