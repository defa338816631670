// The signed-in user's own personal access tokens (docs/reference/http-api.md, HTTP API: /api/tokens).
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { NewToken, Token, TokenRequest } from "../wire.ts";

/** The newest tokens first. */
export const listTokens = (): Promise<Listing<Token>> => listing("/api/tokens");

export async function createToken(token: TokenRequest): Promise<NewToken> {
  return (await post<{ data: NewToken }>("/api/tokens", token)).data;
}

export async function revokeToken(id: number): Promise<void> {
  await api("DELETE", `/api/tokens/${id}`);
}
