// The signed-in user's own licenses (docs/reference/http-api.md, HTTP API: GET /api/licenses) and their IP reset.
import { api } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { OwnLicense } from "../wire.ts";

/** The newest first. */
export const listLicenses = (): Promise<Listing<OwnLicense>> => listing("/api/licenses");

/** Forgets every address the license was validated from (3 times in 24 hours; then a 429). */
export async function resetIps(license: OwnLicense): Promise<void> {
  await api("DELETE", `/api/licenses/${license.id}/ips`);
}
