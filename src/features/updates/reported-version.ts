// The version a client runs, for feeds whose URL does not carry it (electron-updater, Sparkle), so
// that version adoption counts their clients too (features/stats).

/** The header an electron-updater app adds through `autoUpdater.requestHeaders` (docs/vendors.md). */
export const APP_VERSION_HEADER = "x-app-version";

/** What a version name may look like here: a semver-ish token, not free text, and short. */
const VERSION_NAME = /^v?[0-9][0-9A-Za-z.+-]{0,63}$/;

/** Sparkle's User-Agent: `<app name>/<CFBundleShortVersionString> Sparkle/<its own version>`. */
const SPARKLE_AGENT = /\/([^\s/]+)\s+Sparkle\/\S+/;

/**
 * The version the client says it runs: the `x-app-version` header, else the app's version in a
 * Sparkle User-Agent; '' when neither says one (or what it says is not a version name).
 */
export function reportedVersion(headers: Headers): string {
  const header = headers.get(APP_VERSION_HEADER)?.trim();
  if (header) return VERSION_NAME.test(header) ? header : "";
  const sparkle = SPARKLE_AGENT.exec(headers.get("user-agent") ?? "")?.[1];
  return sparkle && VERSION_NAME.test(sparkle) ? sparkle : "";
}
