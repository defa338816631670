import { Elysia, t } from "elysia";
import type { AppContext } from "../../context.ts";
import { answers } from "../../http/schemas.ts";
import { bearerAuth } from "../auth/guards.ts";
import { ProductParams } from "../products/schemas.ts";
import { StatsJson, toStatsCsv } from "./json.ts";
import { StatsQuery } from "./schemas.ts";
import { everyProductScope, productScope, readStats, type StatsScope, statsRequest } from "./service.ts";

const SERIES =
  "Daily series (UTC days, only days with counts): validations by code, activations, deactivations, " +
  "alive machines, downloads by version and file, update polls by feed, channel, platform and " +
  "version, version adoption (distinct clients over 7 days), and each live rollout with the clients " +
  "that took it and those that went back. `?format=csv` answers the same rows " +
  "as one CSV table. 422 for a bad from, to, series or format.";
const Csv = t.String({ description: "text/csv with ?format=csv" });

/** The stats API: GET /api/stats (every product) and GET /api/products/{p}/stats (one). */
export const statsRoutes = (ctx: AppContext) => {
  // Who may comes first: a caller refused is told so (403, 404) whatever the query says.
  const answer = async (scope: StatsScope, query: StatsQuery, set: { headers: Record<string, unknown> }) => {
    const request = statsRequest(query, ctx.config.statsRetentionDays);
    const stats = await readStats(ctx, scope, request);
    if (request.format === "json") return stats;
    set.headers["content-type"] = "text/csv; charset=utf-8";
    set.headers["content-disposition"] =
      `attachment; filename="depot-stats-${request.from}-${request.to}.csv"`;
    return toStatsCsv(stats);
  };
  return new Elysia({ prefix: "/api", tags: ["Stats"] })
    .use(bearerAuth(ctx))
    .get("/stats", ({ query, actor, set }) => answer(everyProductScope(actor), query, set), {
      auth: true,
      query: StatsQuery,
      ...answers(
        { summary: "Usage of every product, per day (products.manage: admins)", description: SERIES },
        { 200: t.Union([StatsJson, Csv]) },
        422,
      ),
    })
    .get(
      "/products/:product/stats",
      async ({ params, query, actor, set }) =>
        answer(await productScope(ctx, actor, params.product), query, set),
      {
        auth: true,
        params: ProductParams,
        query: StatsQuery,
        ...answers(
          {
            summary:
              "A product's usage per day: its owners and products.manage see all of it, a customer their own licenses'",
            description: SERIES,
          },
          { 200: t.Union([StatsJson, Csv]) },
          404,
          422,
        ),
      },
    );
};
