// A product's admin side (README, HTTP API: Admin pages): create, read, change, delete, and its
// options with their benefits.
import { api, get, post } from "../api.ts";
import { allItems } from "../listing.ts";

/** The fields of depot's Product JSON these pages use (flags are "0"/"1" strings there). */
export interface Product {
  id: number;
  name: string;
  slug: string;
  description: string;
  user_id: number;
  hidden: string;
  disabled: string;
  deleted_at: string | null;
}

/** The admin API's request fields: flags are booleans here. */
export interface ProductInput {
  name?: string;
  user_id?: number;
  slug?: string;
  description?: string;
  hidden?: boolean;
  disabled?: boolean;
}

export interface Option {
  id: number;
  name: string;
  price: number;
  benefits: { id: number; name: string }[];
}

export async function readProduct(id: string): Promise<Product> {
  return (await get<{ data: Product }>(`/api/products/${encodeURIComponent(id)}`)).data;
}

/** Every product the reader may see, by the products list (GET /api/products). */
/** Every product, by name: what the purchase form's select offers. */
export const listProducts = (): Promise<Product[]> => allItems<Product>("/api/products");

export async function createProduct(input: ProductInput): Promise<Product> {
  return (await post<{ data: Product }>("/api/admin/products", input)).data;
}

export async function updateProduct(id: number, input: ProductInput): Promise<Product> {
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
