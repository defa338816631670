// License API keys (README, License keys; Admin pages): the list, a new key (shown once), revoking.
import { api, get, post } from "../api.ts";

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

export const LISTED = 100;

export async function listApiKeys(): Promise<{ keys: ApiKey[]; more: boolean }> {
  const page = await get<{ data: ApiKey[]; links: { next: string | null } }>(
    `/api/admin/api-keys?per_page=${LISTED}`,
  );
  return { keys: page.data, more: page.links.next !== null };
}

export async function createApiKey(name: string, creatorId: number | null): Promise<NewApiKey> {
  return (await post<{ data: NewApiKey }>("/api/admin/api-keys", { name, creator_id: creatorId })).data;
}

export async function revokeApiKey(id: number): Promise<void> {
  await api("DELETE", `/api/admin/api-keys/${id}`);
}
