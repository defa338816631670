import { Elysia } from "elysia";
import { HttpError, PayloadTooLarge } from "./errors.ts";

export interface BodyLimits {
  /** Any body: the largest release upload plus its multipart framing. */
  maxBytes: number;
  /** A JSON body, which is parsed whole in memory: far smaller, except where a route needs more. */
  maxJsonBytes(path: string): number;
  /** Routes that count the bytes they read, and so may take a body of undeclared length. */
  countsItself(path: string): boolean;
}

/**
 * Refuses a declared body over its limit with a JSON 413 before anything reads it (Bun's own limit
 * would answer with an empty 413 clients cannot parse, so app.ts sets it out of the way). A body of
 * undeclared length (chunked) could not be limited this way: only routes that count what they read
 * take one; elsewhere it is a 411.
 */
export const bodyLimit = ({ maxBytes, maxJsonBytes, countsItself }: BodyLimits) =>
  new Elysia({ name: "http.body-limit", seed: maxBytes }).onRequest(({ request }) => {
    const length = request.headers.get("content-length");
    const path = new URL(request.url).pathname;
    if (length === null) {
      const chunked = request.headers.get("transfer-encoding")?.toLowerCase().includes("chunked") ?? false;
      if (chunked && !countsItself(path)) throw new HttpError(411, "A Content-Length header is required.");
      return;
    }
    const declared = Number(length);
    if (declared > maxBytes) throw new PayloadTooLarge();
    const isJson = request.headers.get("content-type")?.toLowerCase().includes("json") ?? false;
    if (isJson && declared > maxJsonBytes(path)) throw new PayloadTooLarge();
  });
