// Purchases (docs/reference/http-api.md, HTTP API: GET /api/purchases with ?details=1; POST /api/admin/purchases).
import { post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { Purchase, PurchaseRequest } from "../wire.ts";

/** The purchases the reader may see (all with purchases.view; else theirs and their products'), newest first. */
export const listPurchases = (): Promise<Listing<Purchase>> => listing("/api/purchases?details=1");

export async function createPurchase(input: PurchaseRequest): Promise<void> {
  await post("/api/admin/purchases", input);
}
