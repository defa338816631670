// The signed-in user's own personal access tokens (README, HTTP API: /api/tokens).
import { api, get, post } from "../api.ts";

export interface Token {
  id: number;
  name: string;
  abilities: string[];
  last_used_at: string | null;
  created_at: string;
}

export interface NewToken {
  id: number;
  name: string;
  abilities: string[];
  /** `id|secret`: the only time it is ever shown. */
  token: string;
}

/** The newest tokens first; more than a page of them is unusual, so the page says when there are more. */
export const LISTED = 100;

export async function listTokens(): Promise<{ tokens: Token[]; more: boolean }> {
  const page = await get<{ data: Token[]; links: { next: string | null } }>(`/api/tokens?per_page=${LISTED}`);
  return { tokens: page.data, more: page.links.next !== null };
}

export async function createToken(name: string, abilities: string[]): Promise<NewToken> {
  return (await post<{ data: NewToken }>("/api/tokens", { name, abilities })).data;
}

export async function revokeToken(id: number): Promise<void> {
  await api("DELETE", `/api/tokens/${id}`);
}
