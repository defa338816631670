import { bearer } from "@elysiajs/bearer";
import { Elysia } from "elysia";
import type { AppContext } from "../../context.ts";
import { Forbidden, Unauthenticated } from "../../errors.ts";
import { type RequestState, requestState } from "../../http/request-state.ts";
import { guardRefusals, MessageJson } from "../../http/schemas.ts";
import { authenticateApiKey } from "../api-keys/service.ts";
import { authenticateSession } from "../sessions/guard.ts";
import { authenticateToken } from "../tokens/service.ts";
import { type Actor, type ApiKeyActor, sessionActorOf } from "./actor.ts";
import { allows, type Grant } from "./permissions.ts";

// Credentials are checked in `transform`, which Elysia runs before body validation, so an anonymous
// caller gets 401, not a 422 describing the body it may not send. What they found goes into the
// request's state, and `resolve` hands it to the handler.

/**
 * RFC 9110 §11.1: the authentication scheme is case-insensitive, but @elysiajs/bearer only recognises
 * `Bearer` exactly, so `bearer …` and `BEARER …` are rewritten to it before the plugin reads the header.
 * Named, so it runs once per request however many features use `bearerAuth`.
 */
const bearerScheme = new Elysia({ name: "http.bearer-scheme" }).onRequest(({ request }) => {
  const header = request.headers.get("authorization");
  if (header && !header.startsWith("Bearer") && /^bearer[ \t]/i.test(header)) {
    request.headers.set("authorization", `Bearer${header.slice("bearer".length)}`);
  }
});

/**
 * The token of an `Authorization: Bearer` header, as @elysiajs/bearer parsed it. The plugin also reads
 * `?access_token=` (RFC 6750 §2.3, which advises against it); depot does not: a URL is kept in proxy
 * logs, browser history and Referer headers, so a token in one is as good as published.
 */
export const headerBearer = (request: Request, bearer: string | undefined): string | undefined =>
  /^Bearer[ \t]/.test(request.headers.get("authorization") ?? "") ? bearer : undefined;

/**
 * Bearer personal access tokens, or (Sanctum-style) the dashboard's session cookie when no
 * Authorization header is sent: a header, even a bad one, always decides on its own. A route declares
 * what it needs and receives `actor`: `{ auth: true }` anyone signed in, `{ auth: "versions.publish" }`
 * a caller who may do that, `{ sessionOnly: "why" }` anyone signed in to the dashboard (a valid bearer
 * token gets 403 with that message). A session's state-changing requests are CSRF-checked first (403, 419).
 */
export const bearerAuth = (ctx: AppContext) =>
  new Elysia()
    .use(bearerScheme)
    .use(bearer())
    .macro({
      auth: (needed: Grant | true) => ({
        detail: { security: [{ bearerAuth: [] }, { sessionCookie: [] }] },
        response: guardRefusals,
        async transform({ bearer: token, request, set }) {
          const actor = await identify(ctx, token, request, set);
          if (needed !== true && !allows(actor.permissions, needed)) throw new Forbidden();
          requestState(request).actor = actor;
        },
        resolve: ({ request }) => ({ actor: authenticated(requestState(request), "actor") }),
      }),
      sessionOnly: (tokenRefusal: string) => ({
        detail: { security: [{ sessionCookie: [] }] },
        response: guardRefusals,
        async transform({ bearer: token, request, set }) {
          const actor = await identify(ctx, token, request, set);
          // A token is known good here: its holder learns why, rather than a bare 401.
          if (actor.via !== "session") throw new Forbidden(tokenRefusal);
          requestState(request).actor = actor;
        },
        resolve: ({ request }) => {
          const state = requestState(request);
          return { actor: authenticated(state, "actor"), session: authenticated(state, "session") };
        },
      }),
    });

/** The caller behind the Authorization header, or else the session cookie; 401 for neither. */
async function identify(
  ctx: AppContext,
  token: string | undefined,
  request: Request,
  set: unknown,
): Promise<Actor> {
  const actor = request.headers.has("authorization")
    ? await authenticateToken(ctx, headerBearer(request, token))
    : await sessionActor(ctx, request, set as { headers: Record<string, string | number> });
  if (!actor) throw new Unauthenticated();
  requestState(request).who.user_id = actor.user.id;
  return actor;
}

/** The actor behind the request's session cookie (CSRF-checked when it changes state), or null. */
export async function sessionActor(
  ctx: AppContext,
  request: Request,
  set: { headers: Record<string, string | number> },
): Promise<Actor | null> {
  const signedIn = await authenticateSession(ctx, request, set);
  return signedIn && sessionActorOf(signedIn);
}

/** License API keys in `x-api-key`. A route with `{ apiKey: true }` receives `apiKey`. */
export const apiKeyAuth = (ctx: AppContext) =>
  new Elysia().macro({
    apiKey: (_: true) => ({
      detail: { security: [{ apiKey: [] }] },
      response: { 401: MessageJson },
      async transform({ headers, request }) {
        await requireApiKey(ctx, request, headers["x-api-key"]);
      },
      resolve: ({ request }) => ({ apiKey: authenticated(requestState(request), "apiKey") }),
    }),
  });

/**
 * The license API key in `x-api-key`, written into the request's state (the log names it), or 401
 * "Invalid API key.". The `apiKey` guard, and the routes whose key is optional (a vouched validation,
 * a deactivation by the vendor), all go through here.
 */
export async function requireApiKey(
  ctx: AppContext,
  request: Request,
  header: string | null | undefined,
): Promise<ApiKeyActor> {
  const apiKey = await authenticateApiKey(ctx, header);
  if (!apiKey) throw new Unauthenticated("Invalid API key.", "ApiKey");
  const state = requestState(request);
  state.apiKey = apiKey;
  state.who.api_key_id = apiKey.id;
  return apiKey;
}

/** What `transform` found; a handler reached without it is refused rather than run anonymously. */
function authenticated<K extends "actor" | "apiKey" | "session">(
  state: RequestState,
  key: K,
): NonNullable<RequestState[K]> {
  const value = state[key];
  if (value === undefined) throw new Unauthenticated();
  return value as NonNullable<RequestState[K]>;
}
