// The signed-in user's own licenses (README, HTTP API: GET /api/licenses) and their IP reset.
import { api } from "../api.ts";
import { type Listing, listing } from "../listing.ts";

export interface LicenseIp {
  ip: string;
  first_seen_at: string;
  last_seen_at: string;
}

export interface OwnLicense {
  id: string;
  key: string;
  product: { id: number; name: string };
  expires: string | null;
  revoked: boolean;
  status: "active" | "expired" | "revoked";
  max_ips: number;
  ips: LicenseIp[];
  ip_resets_left: number;
  created_at: string;
}

/** The newest first. */
export const listLicenses = (): Promise<Listing<OwnLicense>> => listing("/api/licenses");

/** Forgets every address the license was validated from (3 times in 24 hours; then a 429). */
export async function resetIps(license: OwnLicense): Promise<void> {
  await api("DELETE", `/api/licenses/${license.id}/ips`);
}
