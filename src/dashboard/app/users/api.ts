// Users for the admin pages (README, HTTP API: Admin pages): the list, a new user, a new role or
// name, and a set-password link for them.
import { api, post } from "../api.ts";
import { type Listing, listing } from "../listing.ts";
import type { User } from "../session.ts";

/** Users by name, those matching `search` (name or e-mail) and holding `role` when given. */
export function listUsers(filters: { search?: string; role?: string } = {}): Promise<Listing<User>> {
  const query = new URLSearchParams();
  if (filters.search) query.set("search", filters.search);
  if (filters.role) query.set("role", filters.role);
  return listing(`/api/admin/users?${query}`);
}

export async function createUser(input: { name: string; email: string; role: string }): Promise<User> {
  return (await post<{ data: User }>("/api/admin/users", input)).data;
}

export async function updateUser(id: number, input: { name?: string; role?: string }): Promise<User> {
  return (await api<{ data: User }>("PATCH", `/api/admin/users/${id}`, input)).data;
}

export interface PasswordLink {
  url: string;
  expires_at: string;
  /** depot queued it for e-mailing (SMTP is configured). */
  emailed: boolean;
}

export async function createPasswordLink(userId: number): Promise<PasswordLink> {
  return (await post<{ data: PasswordLink }>(`/api/admin/users/${userId}/password-link`)).data;
}

/** The user with exactly this e-mail (any case), or null: a search, then an exact match. */
export async function userByEmail(email: string): Promise<User | null> {
  const wanted = email.trim().toLowerCase();
  if (!wanted) return null;
  const { items } = await listUsers({ search: wanted });
  return items.find((user) => user.email.toLowerCase() === wanted) ?? null;
}

/** Users who may own products: vendors and admins (the first page of each), by name. */
export async function productOwners(): Promise<User[]> {
  const [vendors, admins] = await Promise.all([listUsers({ role: "vendor" }), listUsers({ role: "admin" })]);
  return [...vendors.items, ...admins.items].sort((a, b) => a.name.localeCompare(b.name));
}
