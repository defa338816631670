// A product's admin side (docs/reference/http-api.md, HTTP API: Admin pages): create, read, change, delete, and its
// options with their benefits.
import { api, get, post } from "../api.ts";
import { allItems } from "../listing.ts";
import type { Option, Product, ProductChange } from "../wire.ts";

export async function readProduct(id: string): Promise<Product> {
  return (await get<{ data: Product }>(`/api/products/${encodeURIComponent(id)}`)).data;
}

/** Every product the reader may see, by the products list (GET /api/products). */
/** Every product, by name: what the purchase form's select offers. */
export const listProducts = (): Promise<Product[]> => allItems<Product>("/api/products");

export async function createProduct(input: ProductChange): Promise<Product> {
  return (await post<{ data: Product }>("/api/admin/products", input)).data;
}

export async function updateProduct(id: number, input: ProductChange): Promise<Product> {
  return (await api<{ data: Product }>("PATCH", `/api/admin/products/${id}`, input)).data;
}

export async function deleteProduct(id: number): Promise<void> {
  await api("DELETE", `/api/admin/products/${id}`);
}

export async function listOptions(productId: number | string): Promise<Option[]> {
  return (await get<{ data: Option[] }>(`/api/products/${encodeURIComponent(String(productId))}/options`))
    .data;
}

export async function addOption(productId: number, name: string, price: number | undefined): Promise<void> {
  await post(`/api/admin/products/${productId}/options`, { name, price });
}

export async function addBenefit(productId: number, optionId: number, name: string): Promise<void> {
  await post(`/api/admin/products/${productId}/benefits`, { option_id: optionId, name });
}

/** A price typed in a form: the number, or undefined for an empty field (the server says it is required). */
export const priceOf = (typed: string): number | undefined =>
  typed.trim() === "" ? undefined : Number(typed);
