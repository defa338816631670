// Users for the admin pages (docs/reference/http-api.md, HTTP API: Admin pages): the list, a new user, a new role or
// name, and a set-password link for them.
import { api, post } from "../api.ts";
import { allItems, type Listing, listing } from "../listing.ts";
import type { NewUser, PasswordLink, User, UserChange, UserRecord } from "../wire.ts";

/** The users list's path: those matching `search` (name or e-mail) and holding `role` when given. */
function usersPath(filters: { search?: string; role?: string }): string {
  const query = new URLSearchParams();
  if (filters.search) query.set("search", filters.search);
  if (filters.role) query.set("role", filters.role);
  return `/api/admin/users?${query}`;
}

/** Users by name, a page at a time. */
export const listUsers = (filters: { search?: string; role?: string } = {}): Promise<Listing<UserRecord>> =>
  listing(usersPath(filters));

export async function createUser(input: NewUser): Promise<UserRecord> {
  return (await post<{ data: UserRecord }>("/api/admin/users", input)).data;
}

export async function updateUser(id: number, input: UserChange): Promise<UserRecord> {
  return (await api<{ data: UserRecord }>("PATCH", `/api/admin/users/${id}`, input)).data;
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

/** Users who may own products: every vendor and admin, by name (for a select). */
export async function productOwners(): Promise<User[]> {
  const [vendors, admins] = await Promise.all([
    allItems<User>(usersPath({ role: "vendor" })),
    allItems<User>(usersPath({ role: "admin" })),
  ]);
  return [...vendors, ...admins].sort((a, b) => a.name.localeCompare(b.name));
}
