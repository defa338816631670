// Roles for the admin pages: the list with user counts, and a new role.
import { get, post } from "../api.ts";

export interface Role {
  id: number;
  name: string;
  permissions: string[];
  users_count: number;
}

export async function listRoles(): Promise<Role[]> {
  return (await get<{ data: Role[] }>("/api/admin/roles")).data;
}

export async function createRole(name: string, permissions: string[]): Promise<void> {
  await post("/api/admin/roles", { name, permissions });
}
