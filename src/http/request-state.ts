/**
 * What depot knows about one request, filled in as it learns it: the id and clock of its log line,
 * the client's address, its public URL, and who is asking. The one record per request, kept beside
 * the request (a WeakMap: it goes when the request does). The guards add who asked
 * (features/auth/request-state.ts adds their fields to this interface, so http/ needs nothing of
 * features/); the request log writes `who`.
 */
export interface RequestState {
  readonly id: string;
  readonly startedAt: number;
  /** The client's address (X-Forwarded-For only with TRUST_PROXY); null without a socket (app.handle). */
  readonly ip: string | null;
  /** The request's URL as the public sees it (links, signed URLs); worked out when first asked for. */
  readonly url: URL;
  /** Who asked, as the request log writes it (`user_id`, `via`, `api_key_id`), set by the guards. */
  who: Record<string, unknown>;
}

class RequestRecord implements RequestState {
  readonly startedAt = performance.now();
  who: Record<string, unknown> = {};
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
