// License API keys (README, License keys; Admin pages): the list, a new key (shown once), revoking.
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";

export interface ApiKey {
  id: number;
  name: string;
  creator_id: number | null;
  creator_name: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface NewApiKey {
  id: number;
  name: string;
  creator_id: number | null;
  /** `dpk_…`: the only time it is ever shown. */
  key: string;
}

/** The newest keys first. */
export const listApiKeys = (): Promise<Listing<ApiKey>> => listing("/api/admin/api-keys");

export async function createApiKey(name: string, creatorId: number | null): Promise<NewApiKey> {
  return (await post<{ data: NewApiKey }>("/api/admin/api-keys", { name, creator_id: creatorId })).data;
}

export async function revokeApiKey(id: number): Promise<void> {
  await api("DELETE", `/api/admin/api-keys/${id}`);
}
