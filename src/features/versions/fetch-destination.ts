import { Forbidden } from "../../errors.ts";

/**
 * What a download may arrive as (the browser's `Sec-Fetch-Dest`): a navigation or a click on a
 * Download link (`document`), or a script's fetch (`empty`, the dashboard's own requests).
 */
const DOWNLOAD_DESTINATIONS = new Set(["document", "empty"]);

/**
 * Refuses a download the browser fetches as part of a page: an `<img>`, `<script>`, `<link>` or
 * `<iframe>` anywhere, a changelog included, would otherwise download with the reader's session
 * cookie and count as a download. Every other destination (`image`, `script`, `style`, `iframe`,
 * `video`, …) is refused, unknown ones too. Without the header (curl, the CLI, other servers, older
 * browsers) nothing is refused: it only ever narrows what a browser does on a reader's behalf.
 */
export function refuseSubresource(request: Request): void {
  const destination = request.headers.get("sec-fetch-dest");
  if (destination === null || DOWNLOAD_DESTINATIONS.has(destination.trim().toLowerCase())) return;
  throw new Forbidden("A release file is only downloaded, never loaded as part of a page.");
}
