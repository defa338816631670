// Purchases (README, HTTP API: GET /api/purchases with ?details=1; POST /api/admin/purchases).
import { get, post } from "../api.ts";

export interface Purchase {
  id: number;
  quantity: number;
  created_at: string;
  formatted_price: string;
  product: { id: number; name: string };
  option: { id: number; name: string } | null;
  buyer: { id: number; name: string; email: string };
}

export const LISTED = 100;

/** The purchases the reader may see (all with purchases.view; else theirs and their products'), newest first. */
export async function listPurchases(): Promise<{ purchases: Purchase[]; more: boolean }> {
  const page = await get<{ data: Purchase[]; links: { next: string | null } }>(
    `/api/purchases?details=1&per_page=${LISTED}`,
  );
  return { purchases: page.data, more: page.links.next !== null };
}

export interface PurchaseInput {
  user_id: number;
  product_id?: number;
  option_id?: number | null;
  unit_price?: number;
}

export async function createPurchase(input: PurchaseInput): Promise<void> {
  await post("/api/admin/purchases", input);
}
