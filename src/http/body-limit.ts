import { Elysia } from "elysia";
import { PayloadTooLarge } from "./errors.ts";

/**
 * Refuses a declared body over `maxBytes` with a JSON 413 before anything reads it. Bun's own
 * `maxRequestBodySize` (set a little higher in app.ts) answers with an empty 413 that clients cannot
 * parse; this check comes first for every request that declares its length.
 */
export const bodyLimit = (maxBytes: number) =>
  new Elysia({ name: "http.body-limit", seed: maxBytes }).onRequest(({ request }) => {
    const declared = Number(request.headers.get("content-length") ?? 0);
    if (declared > maxBytes) throw new PayloadTooLarge();
  });
