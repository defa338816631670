// Users for the admin pages (README, HTTP API: Admin pages): the list, a new user, a new role or
// name, and a set-password link for them.
import { api, get, post } from "../api.ts";
import type { User } from "../session.ts";

/** One page is plenty for a select or a search result; the page says when there are more. */
export const LISTED = 100;

export async function listUsers(filters: { search?: string; role?: string } = {}) {
  const query = new URLSearchParams({ per_page: String(LISTED) });
  if (filters.search) query.set("search", filters.search);
  if (filters.role) query.set("role", filters.role);
  const page = await get<{ data: User[]; links: { next: string | null } }>(`/api/admin/users?${query}`);
  return { users: page.data, more: page.links.next !== null };
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
  const { users } = await listUsers({ search: wanted });
  return users.find((user) => user.email.toLowerCase() === wanted) ?? null;
}

/** Users who may own products: vendors and admins, by name. */
export async function productOwners(): Promise<User[]> {
  const [vendors, admins] = await Promise.all([listUsers({ role: "vendor" }), listUsers({ role: "admin" })]);
  return [...vendors.users, ...admins.users].sort((a, b) => a.name.localeCompare(b.name));
}
