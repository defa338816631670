import { signResponseHeaders } from "./http-signature.ts";
import type { SigningKeyring } from "./keyring.ts";

type HeaderValue = string | number | string[] | undefined;

interface AnswerContext {
  responseValue: unknown;
  set: { status?: number | string; headers: Record<string, HeaderValue> };
}

/**
 * A route's `mapResponse` hook that signs whatever the route answers: its value (JSON, or a string
 * with the content type the handler set) and its error responses alike, so a client can tell any
 * answer of depot's from one a fake server made up.
 *
 * A value is answered as its serialised text with the signature in `set.headers`, not as a Response:
 * Elysia rebuilds a returned Response around its body stream, which costs a validation about as much
 * CPU as the signature itself (bench/README.md).
 */
export function signedAnswers(keyring: SigningKeyring) {
  // Destructured, so that Elysia (which reads a hook's parameters) knows what it uses.
  const hook = ({ responseValue, set }: AnswerContext) => signAnswer(keyring, responseValue, set);
  // Elysia types a mapResponse hook as returning a Response, but maps whatever it returns like a
  // handler's value (a string becomes the body, with `set.headers`).
  return hook as unknown as (context: AnswerContext) => Response | Promise<Response>;
}

function signAnswer(
  keyring: SigningKeyring,
  responseValue: unknown,
  set: AnswerContext["set"],
): string | Promise<Response> {
  if (responseValue instanceof Response) return signErrorResponse(keyring, responseValue);
  // A 204 has no body and no content type to sign: it goes out as it is (its refusals are signed).
  if (responseValue === undefined) return "";
  const text = typeof responseValue === "string";
  const body = text ? responseValue : JSON.stringify(responseValue);
  if (!text || set.headers["content-type"] === undefined) {
    set.headers["content-type"] = text ? "text/plain; charset=utf-8" : "application/json";
  }
  const status = typeof set.status === "number" ? set.status : 200;
  const signed = signResponseHeaders(keyring.current(), status, String(set.headers["content-type"]), body);
  Object.assign(set.headers, signed);
  return body;
}

/** Error responses come from the error renderer already built; they are signed as they are. */
async function signErrorResponse(keyring: SigningKeyring, response: Response): Promise<Response> {
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  const signed = signResponseHeaders(
    keyring.current(),
    response.status,
    headers.get("content-type") ?? "",
    body,
  );
  for (const [name, value] of Object.entries(signed)) headers.set(name, value);
  return new Response(body, { status: response.status, headers });
}
