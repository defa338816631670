// The dashboard's one way to call depot's JSON API, for every page: JSON in and out, the session's
// CSRF token on every request that changes something, a 401 sends the reader to sign in, and a
// refusal arrives as an ApiError carrying the server's message and its per-field errors.

/** A request that reached depot and was refused: `message` is the server's, ready to show. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Laravel-style field errors of a 422: `{ email: ["…"] }`. */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The request never got an answer: depot is down, or the network is. */
export class NetworkError extends Error {
  constructor() {
    super("depot could not be reached. Check your connection and try again.");
    this.name = "NetworkError";
  }
}

/** What to show for a failed call: depot's own message, or `fallback` for anything unexpected. */
export const messageOf = (failure: unknown, fallback: string) =>
  failure instanceof ApiError || failure instanceof NetworkError ? failure.message : fallback;

let csrfToken: string | null = null;
/** Set from the sign-in and session answers; cleared on sign-out. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The session's CSRF token, for requests that do not go through `api` (the tus uploads). */
export const currentCsrfToken = (): string | null => csrfToken;

let unauthorized: () => void = () => {};
/** What a 401 does (the app sends the reader to the sign-in page). */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler;
}

export interface RequestOptions {
  /** A 401 is an expected answer here (the session check): do not leave the page for sign-in. */
  quietUnauthorized?: boolean;
}

/** Sends a request to depot and returns its JSON body (undefined for an empty body, such as a 204). */
export async function api<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}) {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && method !== "HEAD" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new NetworkError();
  }
  const json = await readJson(response);
  if (response.ok) return json as T;
  throw refusalOf(response, json, options);
}

/** A response's JSON body; undefined when it is empty or not JSON. */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A refused response (with its JSON body read) as the ApiError to throw: depot's message, a 422's
 * field errors; a 401 also sends the reader to sign in. For any request to depot, `api`'s or not.
 */
export function refusalOf(response: Response, json: unknown, options: RequestOptions = {}): ApiError {
  if (response.status === 401 && !options.quietUnauthorized) unauthorized();
  const refusal = (json ?? {}) as { message?: unknown; errors?: unknown };
  const message =
    typeof refusal.message === "string" && refusal.message
      ? refusal.message
      : `depot answered ${response.status} ${response.statusText}`.trim();
  const fields =
    response.status === 422 && refusal.errors && typeof refusal.errors === "object"
      ? (refusal.errors as Record<string, string[]>)
      : {};
  return new ApiError(response.status, message, fields);
}

export const get = <T>(path: string, options?: RequestOptions) => api<T>("GET", path, undefined, options);
export const post = <T>(path: string, body?: unknown, options?: RequestOptions) =>
  api<T>("POST", path, body, options);
