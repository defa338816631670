import { signResponseHeaders } from "./http-signature.ts";
import type { SigningKeyring } from "./keyring.ts";

interface AnswerContext {
  responseValue: unknown;
  set: { status?: number | string; headers: Record<string, string | number | string[] | undefined> };
}

/**
 * A route's `mapResponse` hook that signs whatever the route answers: its value (JSON, or a string
 * with the content type the handler set) and its error responses alike, so a client can tell any
 * answer of depot's from one a fake server made up.
 */
export const signedAnswers =
  (keyring: SigningKeyring) =>
  ({ responseValue, set }: AnswerContext): Response | Promise<Response> => {
    if (responseValue instanceof Response) return signErrorResponse(keyring, responseValue);
    const headers = new Headers();
    for (const [name, value] of Object.entries(set.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : String(value));
    }
    const text = typeof responseValue === "string";
    const body = text ? responseValue : JSON.stringify(responseValue);
    if (!text || !headers.has("content-type")) {
      headers.set("content-type", text ? "text/plain; charset=utf-8" : "application/json");
    }
    const status = typeof set.status === "number" ? set.status : 200;
    signResponseHeaders(keyring.current(), status, headers, body);
    return new Response(body, { status, headers });
  };

/** Error responses come from the error renderer already built; they are signed as they are. */
async function signErrorResponse(keyring: SigningKeyring, response: Response): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  signResponseHeaders(keyring.current(), response.status, headers, body);
  return new Response(body, { status: response.status, headers });
}
