// A product's license policies (docs/reference/http-api.md, /api/products/{product}/license-policies).
import { api, get, post } from "../api.ts";
import type { NewPolicy, Policy, PolicyChange } from "../wire.ts";

const base = (productId: string) => `/api/products/${encodeURIComponent(productId)}/license-policies`;

export async function listPolicies(productId: string): Promise<Policy[]> {
  return (await get<{ data: Policy[] }>(base(productId))).data;
}

export async function createPolicy(productId: string, body: NewPolicy): Promise<Policy> {
  return (await post<{ data: Policy }>(base(productId), body)).data;
}

/** Changes the settings sent; the policy's licenses follow in every setting they do not name themselves. */
export async function updatePolicy(
  productId: string,
  policyId: number,
  change: PolicyChange,
): Promise<Policy> {
  return (await api<{ data: Policy }>("PATCH", `${base(productId)}/${policyId}`, change)).data;
}

/** Deletes the policy; its licenses keep the settings they have now, as their own. */
export async function deletePolicy(productId: string, policyId: number): Promise<void> {
  await api("DELETE", `${base(productId)}/${policyId}`);
}
