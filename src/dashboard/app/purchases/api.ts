// Purchases (README, HTTP API: GET /api/purchases with ?details=1; POST /api/admin/purchases).
import { post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";

export interface Purchase {
  id: number;
  quantity: number;
  created_at: string;
  formatted_price: string;
  product: { id: number; name: string };
  option: { id: number; name: string } | null;
  buyer: { id: number; name: string; email: string };
}

/** The purchases the reader may see (all with purchases.view; else theirs and their products'), newest first. */
export const listPurchases = (): Promise<Listing<Purchase>> => listing("/api/purchases?details=1");

export interface PurchaseInput {
  user_id: number;
  product_id?: number;
  option_id?: number | null;
  unit_price?: number;
}

export async function createPurchase(input: PurchaseInput): Promise<void> {
  await post("/api/admin/purchases", input);
}
