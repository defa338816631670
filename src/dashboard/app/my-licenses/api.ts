// The signed-in user's own licenses (docs/reference/http-api.md: GET /api/licenses), their IP reset, and their
// machines (docs/vendors.md: Machines): deactivating one, and the offline exchange.
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { OfflineFile, OwnLicense, OwnMachine } from "../wire.ts";

/** The newest first. */
export const listLicenses = (): Promise<Listing<OwnLicense>> => listing("/api/licenses");

/** Forgets every address the license was validated from (3 times in 24 hours; then a 429). */
export async function resetIps(license: OwnLicense): Promise<void> {
  await api("DELETE", `/api/licenses/${license.id}/ips`);
}

/** Frees the machine's seat. */
export async function deactivateMachine(license: OwnLicense, machine: OwnMachine): Promise<void> {
  await api("DELETE", `/api/licenses/${license.id}/machines/${machine.id}`);
}

/** Exchanges an air-gapped machine's activation request (base64, as pasted) for its license file. */
export async function activateOffline(license: OwnLicense, request: string): Promise<OfflineFile> {
  return (await post<{ data: OfflineFile }>(`/api/licenses/${license.id}/machines/offline`, { request }))
    .data;
}
