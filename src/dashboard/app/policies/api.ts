// A product's license policies (docs/reference/http-api.md, /api/products/{product}/license-policies).
import { get, post } from "../api.ts";
import type { NewPolicy, Policy } from "../wire.ts";

const base = (productId: string) => `/api/products/${encodeURIComponent(productId)}/license-policies`;

export async function listPolicies(productId: string): Promise<Policy[]> {
  return (await get<{ data: Policy[] }>(base(productId))).data;
}

export async function createPolicy(productId: string, body: NewPolicy): Promise<Policy> {
  return (await post<{ data: Policy }>(base(productId), body)).data;
}
