import type { Actor, ApiKeyActor } from "../features/auth/actor.ts";
import type { SignedIn } from "../features/sessions/service.ts";

/**
 * What depot knows about one request, filled in as it learns it: the id and clock of its log line,
 * the client's address, and who is asking. The one record per request, kept beside the request (a
 * WeakMap: it goes when the request does). Auth writes who; routes and the request log read it.
 */
export interface RequestState {
  readonly id: string;
  readonly startedAt: number;
  /** The client's address (X-Forwarded-For only with TRUST_PROXY); null without a socket (app.handle). */
  readonly ip: string | null;
  /** The request's URL as the public sees it (links, signed URLs); worked out when first asked for. */
  readonly url: URL;
  /** The user of a bearer token or of the session cookie, once authenticated. */
  actor?: Actor;
  /** The dashboard session behind the cookie, once checked (also for routes about the session itself). */
  session?: SignedIn;
  /** The license API key of `x-api-key`, once checked. */
  apiKey?: ApiKeyActor;
  /** Whom a download was served to, when a signed link or a license key rather than `actor` said so. */
  downloadUserId?: number;
}

class RequestRecord implements RequestState {
  readonly startedAt = performance.now();
  actor?: Actor;
  session?: SignedIn;
  apiKey?: ApiKeyActor;
  downloadUserId?: number;
  #url?: URL;

  constructor(
    private readonly request: Request,
    readonly id: string,
    readonly ip: string | null,
    private readonly appUrl: string,
  ) {}

  get url(): URL {
    this.#url ??= publicUrl(this.request.url, this.appUrl);
    return this.#url;
  }
}

const states = new WeakMap<Request, RequestState>();

/** Starts the record of a request; the request log does this first thing. */
export function startRequestState(
  request: Request,
  start: { id: string; ip: string | null; appUrl: string },
): RequestState {
  const state = new RequestRecord(request, start.id, start.ip, start.appUrl);
  states.set(request, state);
  return state;
}

/**
 * The record of `request`. Every request that reached the app has one; a request that did not (a
 * service called outside HTTP) gets an empty one, so callers never branch on it.
 */
export function requestState(request: Request): RequestState {
  return states.get(request) ?? startRequestState(request, { id: crypto.randomUUID(), ip: null, appUrl: "" });
}

/**
 * A URL as the public sees it: APP_URL (which may carry a path prefix) plus the request's path and
 * query, so links are right behind a proxy or a mapped container port.
 */
export function publicUrl(requestUrl: string, appUrl: string): URL {
  const url = new URL(requestUrl);
  return new URL(`${appUrl}${url.pathname}${url.search}`);
}

/** Who asked, as the request log writes it: the user (and `via` a session), or the API key. */
export function whoAsked(state: RequestState): Record<string, unknown> {
  const userId = state.actor?.user.id ?? state.session?.user.id ?? state.downloadUserId;
  return {
    ...(userId === undefined ? {} : { user_id: userId }),
    ...(state.session ? { via: "session" } : {}),
    ...(state.apiKey ? { api_key_id: state.apiKey.id } : {}),
  };
}
