import { Elysia } from "elysia";
import { PayloadTooLarge } from "../errors.ts";

/**
 * Refuses a declared body over the largest any route takes (a release upload) with a JSON 413 before
 * anything reads it; Bun's own limit would answer with an empty 413 clients cannot parse, so app.ts
 * sets that out of the way. Each route then holds its body to its own, smaller limit as it reads it
 * (`body-parser.ts` for JSON routes, the publish routes' readers for uploads), chunked or not.
 */
export const bodyLimit = (maxBytes: number) =>
  new Elysia({ name: "http.body-limit", seed: maxBytes }).onRequest(({ request }) => {
    const length = request.headers.get("content-length");
    if (length !== null && Number(length) > maxBytes) throw new PayloadTooLarge();
  });
