import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The first-run setup code: an HMAC of a fixed purpose under APP_KEY, so every instance sharing the
 * APP_KEY prints and accepts the same code and nothing is stored. It stops working the moment any
 * user exists (the setup routes answer 404 from then on): single use with nothing to clean up.
 */
export const setupCode = (appKey: string) =>
  createHmac("sha256", appKey).update("depot:first-admin-setup").digest("base64url");

/** Compared in constant time; anything not shaped like a code is simply wrong. */
export function setupCodeMatches(appKey: string, code: string): boolean {
  const expected = Buffer.from(setupCode(appKey));
  const given = Buffer.from(code);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The page `depot serve` prints when no user exists: the dashboard with the code filled in. */
export const setupLink = (appUrl: string, appKey: string) =>
  `${appUrl.replace(/\/+$/, "")}/setup?code=${setupCode(appKey)}`;
