// Roles for the admin pages: the list with user counts, a new role, a role changed or deleted.
import { api, get, post } from "../api.ts";
import type { NewRole, Role } from "../wire.ts";

export async function listRoles(): Promise<Role[]> {
  return (await get<{ data: Role[] }>("/api/admin/roles")).data;
}

export async function createRole(role: NewRole): Promise<void> {
  await post("/api/admin/roles", role);
}

export async function updateRole(id: number, change: Partial<NewRole>): Promise<void> {
  await api("PATCH", `/api/admin/roles/${id}`, change);
}

export async function deleteRole(id: number): Promise<void> {
  await api("DELETE", `/api/admin/roles/${id}`);
}

/** Seeded by depot and named by its code: the server refuses to change or delete them. */
export const BUILT_IN_ROLES: readonly string[] = ["admin", "vendor", "customer"];
