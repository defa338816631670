// What the signed-in user may download (docs/reference/http-api.md, HTTP API: GET /api/downloads), a product's older
// versions, and a changelog rendered by the server (sanitised, as the e-mails show it).
import { get, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { Download, Version } from "../wire.ts";

export async function listDownloads(): Promise<Download[]> {
  return (await get<{ data: Download[] }>("/api/downloads")).data;
}

/** A product's versions, newest first (benefits' too: the caller keeps the release line it shows). */
export const listVersions = (productId: number): Promise<Listing<Version>> =>
  listing(`/api/products/${productId}/versions`);

/** The changelog as sanitised HTML, ready to insert. */
export async function renderChangelog(version: Version): Promise<string> {
  const answer = await post<{ data: { html: string } }>("/api/changelog/preview", {
    changelog: version.changelog,
    changelog_format: version.changelog_format,
  });
  return answer.data.html;
}
