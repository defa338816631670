// The signed-in user's own licenses (README, HTTP API: GET /api/licenses) and their IP reset.
import { api, get } from "../api.ts";

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

/** The newest first; more than a page of them is unusual, so the page says when there are more. */
export const LISTED = 100;

export async function listLicenses(): Promise<{ licenses: OwnLicense[]; more: boolean }> {
  const page = await get<{ data: OwnLicense[]; links: { next: string | null } }>(
    `/api/licenses?per_page=${LISTED}`,
  );
  return { licenses: page.data, more: page.links.next !== null };
}

/** Forgets every address the license was validated from (3 times in 24 hours; then a 429). */
export async function resetIps(license: OwnLicense): Promise<void> {
  await api("DELETE", `/api/licenses/${license.id}/ips`);
}
