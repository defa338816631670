// Roles for the admin pages: the list with user counts, and a new role.
import { get, post } from "../api.ts";
import type { NewRole, Role } from "../wire.ts";

export async function listRoles(): Promise<Role[]> {
  return (await get<{ data: Role[] }>("/api/admin/roles")).data;
}

export async function createRole(role: NewRole): Promise<void> {
  await post("/api/admin/roles", role);
}
