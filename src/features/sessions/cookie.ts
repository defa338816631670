import { noContent } from "../../http/schemas.ts";

/** The dashboard's session cookie: HttpOnly so page scripts never see it, Lax so other sites' forms do not send it. */
export const SESSION_COOKIE = "depot_session";

/** The `depot_session` value of the request's Cookie header (the first, if sent twice), or null. */
export function readSessionCookie(request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const pair of header.split(";")) {
    const eq = pair.indexOf("=");
    if (eq === -1 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    return value === "" ? null : value;
  }
  return null;
}

/** Secure only when the public address is https: a plain-http APP_URL (development) would never get it back. */
const attributes = (secure: boolean) => `Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

export const sessionCookie = (token: string, maxAgeSeconds: number, secure: boolean) =>
  `${SESSION_COOKIE}=${token}; ${attributes(secure)}; Max-Age=${maxAgeSeconds}`;

export const clearedSessionCookie = (secure: boolean) =>
  `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0`;

/** Signed out: once the session (or every one) has ended, the browser is told to drop its cookie; 204. */
export const signedOut = (
  set: { headers: Record<string, unknown> },
  secure: boolean,
  ending: Promise<void>,
) =>
  noContent(
    ending.then(() => {
      set.headers["set-cookie"] = clearedSessionCookie(secure);
    }),
  );

export const cookieIsSecure = (appUrl: string) => appUrl.startsWith("https:");
