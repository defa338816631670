import { Elysia } from "elysia";
import type { Logger } from "../log.ts";

interface RequestMeta {
  id: string;
  startedAt: number;
}

const meta = new WeakMap<Request, RequestMeta>();

/** A caller's own request id is kept when it is a sane token, so traces join up across services. */
const CALLER_ID = /^[\w.:-]{1,128}$/;

export function requestIdOf(request: Request): string | undefined {
  return meta.get(request)?.id;
}

/** Gives every response an `X-Request-Id` and writes one JSON log line per request. */
export const requestLog = (log: Logger) =>
  new Elysia({ name: "http.request-log" })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get("x-request-id");
      const id = incoming && CALLER_ID.test(incoming) ? incoming : crypto.randomUUID();
      meta.set(request, { id, startedAt: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onAfterResponse({ as: "global" }, ({ request, path, set }) => {
      const m = meta.get(request);
      log.info("request", {
        request_id: m?.id,
        method: request.method,
        path,
        status: typeof set.status === "number" ? set.status : 200,
        duration_ms: m ? Math.round((performance.now() - m.startedAt) * 100) / 100 : undefined,
      });
    });
