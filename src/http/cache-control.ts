import { pathOf } from "./request-path.ts";

/** The API, and the update feeds, whose answers depend on the license and the rollout's cohort. */
const isPrivatePath = (path: string) =>
  path === "/api" || path.startsWith("/api/") || path.startsWith("/updates/");

/**
 * Every `/api` and `/updates` answer says `Cache-Control: no-store` unless its route chose its own. Answers carry
 * secrets (new tokens, API keys, license keys, webhook secrets) or what one user may see, and a
 * shared or browser cache must keep none of them; deciding per request whether credentials came
 * along (a bearer token, the session cookie, `x-api-key`, a license key in a header or in the body
 * of a validation) would leave a route that hands out a secret without them, such as the validation,
 * to remember it by itself. The few answers that choose otherwise set their own header, which Elysia
 * keeps over this default: a release file is `private, no-cache` with its ETag, so a browser may keep
 * it and revalidate (304); the public signing keys are `public, max-age=300`. An `onRequest` hook of
 * the app itself (app.ts), so it runs before any route and before any refusal is rendered.
 */
export function apiNoStore({
  request,
  set,
}: {
  request: Request;
  set: { headers: Record<string, unknown> };
}) {
  if (isPrivatePath(pathOf(request.url))) set.headers["cache-control"] = "no-store";
}
