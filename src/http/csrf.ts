import { timingSafeEqual } from "node:crypto";
import { CrossSiteRefused, CsrfMismatch } from "../errors.ts";

/** Methods that change nothing; everything else made with a session cookie is CSRF-checked. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
export const changesState = (request: Request) => !SAFE_METHODS.has(request.method);

/**
 * A browser says where a request comes from: `Sec-Fetch-Site` (same-origin, or none when the person
 * typed it) and `Origin`. Either naming another site is refused. `Origin` may be APP_URL's origin or
 * the one the request was addressed to (its Host, as Rails compares it): a page opened at another
 * address of this server is still its own page, and the session cookie is per host anyway. Clients
 * that send neither (curl) still need the CSRF token, which only a page of ours can read.
 */
export function refuseCrossSite(request: Request, appUrl: string): void {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") throw new CrossSiteRefused();
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(appUrl).origin && origin !== new URL(request.url).origin) {
    throw new CrossSiteRefused();
  }
}

/** `X-CSRF-Token` must be the session's token (Laravel's 419 otherwise). */
export function requireCsrfToken(request: Request, expected: string): void {
  const sent = Buffer.from(request.headers.get("x-csrf-token") ?? "");
  const wanted = Buffer.from(expected);
  if (sent.length !== wanted.length || !timingSafeEqual(sent, wanted)) throw new CsrfMismatch();
}
