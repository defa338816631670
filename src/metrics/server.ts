import type { Config } from "../config.ts";
import { NotFound } from "../errors.ts";
import { listenStartupError } from "../startup-errors.ts";
import { metricsResponse } from "./http.ts";
import type { Exposition } from "./metrics.ts";

/**
 * METRICS_PORT: a listener of its own that serves only `GET /metrics`, without auth, on METRICS_HOST
 * (loopback unless told otherwise), for a scraper on the same host or network. Returns null when
 * METRICS_PORT is unset; an address it cannot listen on names METRICS_PORT or METRICS_HOST.
 */
export function startMetricsServer(config: Config, metrics: { exposition(): Promise<Exposition> } | null) {
  if (config.metricsPort === null || metrics === null) return null;
  const { metricsPort: port, metricsHost: host } = config;
  try {
    return Bun.serve({
      port,
      hostname: host,
      reusePort: false,
      fetch(request) {
        const { pathname } = new URL(request.url);
        if (pathname !== "/metrics") {
          const missing = new NotFound("Route");
          return Response.json(missing.body(), { status: missing.status });
        }
        if (request.method !== "GET" && request.method !== "HEAD") {
          return Response.json(
            { message: `The ${request.method} method is not supported for this route.` },
            { status: 405, headers: { allow: "GET, HEAD" } },
          );
        }
        return metricsResponse(metrics);
      },
    });
  } catch (error) {
    throw listenStartupError(error, host, port, { port: "METRICS_PORT", host: "METRICS_HOST" }) ?? error;
  }
}
