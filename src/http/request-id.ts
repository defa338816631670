import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import type { Metrics } from "../metrics/metrics.ts";
import { clientIp } from "./client-ip.ts";
import { type RequestState, requestState, startRequestState } from "./request-state.ts";

/** A caller's own request id is kept when it is a sane token, so traces join up across services. */
const CALLER_ID = /^[\w.:-]{1,128}$/;

/** The status actually sent: a handler that returns a Response (downloads: 206, 304, 416) sets it there, not in `set`. */
export function sentStatus(set: { status?: unknown }, responseValue: unknown): number {
  if (responseValue instanceof Response) return responseValue.status;
  return typeof set.status === "number" ? set.status : 200;
}

/**
 * Gives every response an `X-Request-Id` (and `X-Content-Type-Options: nosniff`) and writes one JSON
 * log line per request: who asked (user or API key, client address), the status actually sent and how
 * many body bytes. With `metrics` the same hook counts and times the request by its route pattern: a
 * hook of its own cost more than the counting.
 */
export const requestLog = (
  log: Logger,
  config: { trustProxy: boolean; appUrl: string },
  metrics: Metrics | null = null,
) =>
  new Elysia({ name: "http.request-log" })
    .onRequest(({ request, set, server }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && CALLER_ID.test(incoming) ? incoming : crypto.randomUUID();
      const ip = clientIp(request, server?.requestIP(request)?.address, config.trustProxy);
      startRequestState(request, { id, ip, appUrl: config.appUrl });
      set.headers["x-request-id"] = id;
      // No response is ever to be read as another type than it says (a release file, a JSON error).
      set.headers["x-content-type-options"] = "nosniff";
    })
    .onAfterResponse({ as: "global" }, ({ request, path, route, set, responseValue }) => {
      const state = requestState(request);
      const elapsed = performance.now() - state.startedAt;
      const status = sentStatus(set, responseValue);
      metrics?.request(route ?? "", request.method, status, elapsed / 1000);
      if (!log.enabled("info")) return;
      const bytes = request.method === "HEAD" ? 0 : bodyBytes(responseValue);
      log.infoFields("request", requestFields(state, request.method, path, status, elapsed, bytes));
    });

/**
 * The request line's fields as JSON text, in the order they always had: request_id, method, path,
 * status, duration_ms, bytes, ip, then who asked (user_id, via, api_key_id as the guards set them).
 * One string, no object built per request (tests/logs.test.ts holds it to the JSON of those fields).
 */
export function requestFields(
  state: Pick<RequestState, "id" | "ip" | "who">,
  method: string,
  path: string,
  status: number,
  elapsedMs: number,
  bytes: number | null,
): string {
  let fields =
    `"request_id":${JSON.stringify(state.id)},"method":${JSON.stringify(method)},"path":${JSON.stringify(path)}` +
    `,"status":${status},"duration_ms":${Math.round(elapsedMs * 100) / 100},"bytes":${bytes !== null && Number.isFinite(bytes) ? bytes : null}` +
    `,"ip":${state.ip === null ? "null" : JSON.stringify(state.ip)}`;
  for (const name in state.who) {
    const value = state.who[name];
    if (value !== undefined) fields += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return fields;
}

/** The size of the body sent, as far as it is known without reading it (a stream's is not). */
function bodyBytes(value: unknown): number | null {
  if (value === undefined || value === null) return 0;
  if (value instanceof Response) {
    if (value.body === null) return 0;
    const length = value.headers.get("content-length");
    if (length !== null) return Number(length);
    const range = /^bytes (\d+)-(\d+)\//.exec(value.headers.get("content-range") ?? "");
    return range ? Number(range[2]) - Number(range[1]) + 1 : null;
  }
  if (typeof value === "string") return Buffer.byteLength(value);
  if (typeof value === "object") return Buffer.byteLength(JSON.stringify(value));
  return Buffer.byteLength(String(value));
}
