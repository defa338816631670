// depot's answers carry absolute URLs over APP_URL; the dashboard links to the same path on the origin
// it was loaded from, as it calls the API by path: the session cookie goes with the request even when
// the dashboard is reached by another name than APP_URL (a mapped port, a test server).

/**
 * A depot download URL as a link for a signed-in page: its path alone, which the session cookie opens
 * with the holder rules. A notification's signed query is dropped: it expires after 7 days, the
 * session's right to download does not.
 */
export const sessionDownloadHref = (url: string): string => new URL(url, location.origin).pathname;
