import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { AppContext } from "../context.ts";
import { NotFound, Unauthenticated } from "../errors.ts";
import { refusals } from "../http/schemas.ts";
import type { Exposition } from "./metrics.ts";

/**
 * `GET /metrics` on the main port, for a scraper holding METRICS_TOKEN. Without METRICS_TOKEN the route
 * answers like one that does not exist (METRICS_PORT may still serve the metrics on its own listener).
 */
export const metricsRoute = (ctx: AppContext) => {
  const expected = ctx.config.metricsToken;
  return new Elysia().get(
    "/metrics",
    async ({ request }) => {
      if (expected === null || ctx.metrics === null) throw new NotFound("Route");
      if (!tokenMatches(request.headers.get("authorization"), expected)) {
        throw new Unauthenticated();
      }
      return metricsResponse(ctx.metrics);
    },
    {
      response: refusals(401, 404),
      detail: {
        summary: "Prometheus metrics (text exposition format)",
        description:
          "Served only when METRICS_TOKEN is set, to `Authorization: Bearer $METRICS_TOKEN` (401 otherwise); " +
          "404 without METRICS_TOKEN. METRICS_PORT serves the same on a separate listener without auth.",
        tags: ["Health"],
      },
    },
  );
};

export async function metricsResponse(metrics: { exposition(): Promise<Exposition> }): Promise<Response> {
  const { body, contentType } = await metrics.exposition();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}

/**
 * Compares the bearer token in constant time: both sides are hashed first, so neither the token's
 * length nor where it first differs shows in the timing.
 */
function tokenMatches(header: string | null, expected: string): boolean {
  const match = /^bearer\s+(\S+)\s*$/i.exec(header ?? "");
  const given = sha256(match?.[1] ?? "");
  return timingSafeEqual(given, sha256(expected)) && match !== null;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest();
