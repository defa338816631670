import { Elysia } from "elysia";
import { PayloadTooLarge } from "./errors.ts";

export interface BodyLimits {
  /** Any body: the largest release upload plus its multipart framing. */
  maxBytes: number;
  /** A JSON body, which is parsed whole in memory: far smaller, except where a route needs more. */
  maxJsonBytes(path: string): number;
}

/**
 * Refuses a declared body over its limit with a JSON 413 before anything reads it. Bun's own
 * `maxRequestBodySize` (set a little higher in app.ts) answers with an empty 413 that clients cannot
 * parse; this check comes first for every request that declares its length.
 */
export const bodyLimit = ({ maxBytes, maxJsonBytes }: BodyLimits) =>
  new Elysia({ name: "http.body-limit", seed: maxBytes }).onRequest(({ request }) => {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > maxBytes) throw new PayloadTooLarge();
    const isJson = request.headers.get("content-type")?.toLowerCase().includes("json") ?? false;
    if (isJson && declared > maxJsonBytes(new URL(request.url).pathname)) throw new PayloadTooLarge();
  });
