import { Elysia } from "elysia";
import { AppError, PayloadTooLarge } from "../errors.ts";
import { isJsonType, parseJsonBody, readBodyText } from "./json-body.ts";

export interface JsonBodyOptions {
  /** The largest JSON body any route takes. */
  maxBytes: number;
  /** Whether the route (`METHOD /path/:param`) validates a JSON body schema. */
  takesJson(method: string, route: string): boolean;
}

/**
 * The one parser of request bodies, for every route. A route with a body schema gets its body refused
 * past `maxBytes` whatever its type, declared or counted while read; checked for depth, size and NUL characters, and
 * parsed; any other type than JSON is a 415 before a byte is read. A route without a body schema gets
 * `null` and its body is left alone: the publish routes stream theirs themselves, the others take none.
 * (A route's own `parse: "none"` would be overridden by a global parse hook, so none is used.)
 */
export const jsonBodies = ({ maxBytes, takesJson }: JsonBodyOptions) =>
  new Elysia({ name: "http.body-parser" }).onParse({ as: "global" }, async ({ request, route }) => {
    if (!takesJson(request.method, route)) return null;
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > maxBytes) throw new PayloadTooLarge();
    if (!isJsonType(request.headers.get("content-type"))) {
      const hasBody = declared === null ? request.headers.has("transfer-encoding") : Number(declared) > 0;
      if (hasBody) throw new AppError(415, "Send the request body as application/json.");
      return null;
    }
    const text = await readBodyText(request, maxBytes);
    // No body at all reads as null, which the route's schema refuses as "must be a JSON object".
    return text.trim() === "" ? null : parseJsonBody(text);
  });
