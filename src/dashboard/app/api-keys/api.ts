// License API keys (docs/vendors.md, License keys; Admin pages): the list, a new key (shown once), revoking.
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { ApiKey, ApiKeyRequest, NewApiKey } from "../wire.ts";

/** The newest keys first. */
export const listApiKeys = (): Promise<Listing<ApiKey>> => listing("/api/admin/api-keys");

export async function createApiKey(key: ApiKeyRequest): Promise<NewApiKey> {
  return (await post<{ data: NewApiKey }>("/api/admin/api-keys", key)).data;
}

export async function revokeApiKey(id: number): Promise<void> {
  await api("DELETE", `/api/admin/api-keys/${id}`);
}
