// The signed-in user's own personal access tokens (README, HTTP API: /api/tokens).
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";

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

/** The newest tokens first. */
export const listTokens = (): Promise<Listing<Token>> => listing("/api/tokens");

export async function createToken(name: string, abilities: string[]): Promise<NewToken> {
  return (await post<{ data: NewToken }>("/api/tokens", { name, abilities })).data;
}

export async function revokeToken(id: number): Promise<void> {
  await api("DELETE", `/api/tokens/${id}`);
}
