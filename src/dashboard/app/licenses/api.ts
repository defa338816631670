// A product's licenses as its vendor manages them (docs/reference/http-api.md, HTTP API: /api/products/{product}/licenses).
import type { ProductMachinesJson } from "../../../features/machines/json.ts";
import { api, get, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { License, LicenseChange, LicenseIp, NewLicense, OfflineFile } from "../wire.ts";

const base = (productId: string) => `/api/products/${encodeURIComponent(productId)}/licenses`;

/** The newest licenses first, those matching `search` (a key's beginning, an owner's name or e-mail). */
export function listLicenses(productId: string, search: string): Promise<Listing<License>> {
  const query = new URLSearchParams();
  if (search) query.set("search", search);
  return listing(`${base(productId)}?${query}`);
}

export async function createLicense(productId: string, body: NewLicense): Promise<License> {
  return (await post<{ data: License }>(base(productId), body)).data;
}

export async function updateLicense(
  productId: string,
  licenseId: string,
  change: LicenseChange,
): Promise<License> {
  return (await api<{ data: License }>("PATCH", `${base(productId)}/${licenseId}`, change)).data;
}

export async function revokeLicense(productId: string, licenseId: string): Promise<void> {
  await api("DELETE", `${base(productId)}/${licenseId}`);
}

export async function listIps(productId: string, licenseId: string): Promise<LicenseIp[]> {
  return (await get<{ data: LicenseIp[] }>(`${base(productId)}/${licenseId}/ips`)).data;
}

/** Forgets one address, or every one of the license's when `ip` is null. */
export async function forgetIps(productId: string, licenseId: string, ip: string | null): Promise<void> {
  const path = ip === null ? "" : `/${encodeURIComponent(ip)}`;
  await api("DELETE", `${base(productId)}/${licenseId}/ips${path}`);
}

/** A license's machines as its vendor sees them, with the longest a license file of it lasts (seconds). */
export type VendorMachines = (typeof ProductMachinesJson)["static"];
export type VendorMachine = VendorMachines["data"][number];

export const listMachines = (productId: string, licenseId: string): Promise<VendorMachines> =>
  get<VendorMachines>(`${base(productId)}/${licenseId}/machines`);

/**
 * Frees the machine's seat. Without `force` a machine whose license file is still valid keeps it (a
 * 409); `force` frees it anyway, and the file keeps working offline until it expires.
 */
export async function deactivateMachine(
  productId: string,
  licenseId: string,
  machineId: string,
  force: boolean,
): Promise<void> {
  await api("DELETE", `${base(productId)}/${licenseId}/machines/${machineId}${force ? "?force=true" : ""}`);
}

/** Exchanges a customer's air-gapped activation request for its file, lasting `ttl` seconds (cut to the ceiling). */
export async function activateOffline(
  productId: string,
  licenseId: string,
  request: string,
  ttl: number,
): Promise<OfflineFile> {
  const path = `${base(productId)}/${licenseId}/machines/offline`;
  return (await post<{ data: OfflineFile }>(path, { request, ttl })).data;
}
