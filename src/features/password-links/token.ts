import { createHmac, timingSafeEqual } from "node:crypto";
import { sha256Hex } from "../auth/secrets.ts";

/**
 * A set-password token: `<user id>.<expires, unix seconds>.<signature>`. The signature (HMAC-SHA256
 * under a key derived from APP_KEY, as signed download URLs are) also covers a fingerprint of the
 * user's current password hash. Setting a password changes the hash (argon2 salts every hash), so a
 * used link, or one issued before a later change, no longer matches: single use with nothing stored.
 */
export interface LinkClaims {
  userId: number;
  /** Unix seconds. */
  expires: number;
}

/** Its own key, so a signature made for another purpose (a download URL) can never pass here. */
const linkKey = (appKey: string) => createHmac("sha256", appKey).update("depot:password-links").digest();

/** What a link is bound to: the password hash as it is now (no password yet is a state too). */
export const passwordFingerprint = (passwordHash: string | null) => sha256Hex(passwordHash ?? "<none>");

const signature = (appKey: string, claims: LinkClaims, fingerprint: string) =>
  createHmac("sha256", linkKey(appKey))
    .update(`${claims.userId}.${claims.expires}.${fingerprint}`)
    .digest("base64url");

export const signLinkToken = (appKey: string, claims: LinkClaims, fingerprint: string) =>
  `${claims.userId}.${claims.expires}.${signature(appKey, claims, fingerprint)}`;

const TOKEN = /^([1-9]\d{0,15})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The claims a token states, before any check; null when it is not shaped like a token at all. */
export function parseLinkToken(token: string): (LinkClaims & { signature: string }) | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const userId = Number(match[1]);
  if (!Number.isSafeInteger(userId)) return null;
  return { userId, expires: Number(match[2]), signature: match[3] ?? "" };
}

/** The token's signature is right for these claims and this password state (compared in constant time). */
export function signatureMatches(
  appKey: string,
  claims: LinkClaims & { signature: string },
  fingerprint: string,
): boolean {
  const expected = Buffer.from(signature(appKey, claims, fingerprint));
  const given = Buffer.from(claims.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
