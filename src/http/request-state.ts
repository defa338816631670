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
  /** The user of a bearer token or of the session cookie, once authenticated. */
  actor?: Actor;
  /** The dashboard session behind the cookie, once checked (also for routes about the session itself). */
  session?: SignedIn;
  /** The license API key of `x-api-key`, once checked. */
  apiKey?: ApiKeyActor;
  /** Whom a download was served to, when a signed link or a license key rather than `actor` said so. */
  downloadUserId?: number;
}

const states = new WeakMap<Request, RequestState>();

/** Starts the record of a request; the request log does this first thing. */
export function startRequestState(request: Request, state: Omit<RequestState, "startedAt">): RequestState {
  const started = { ...state, startedAt: performance.now() };
  states.set(request, started);
  return started;
}

/**
 * The record of `request`. Every request that reached the app has one; a request that did not (a
 * service called outside HTTP) gets an empty one, so callers never branch on it.
 */
export function requestState(request: Request): RequestState {
  return states.get(request) ?? startRequestState(request, { id: crypto.randomUUID(), ip: null });
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
