// The roles as a table: permissions, how many users have each, and Edit / Delete for the roles that
// are not built in.
import { type Column, Table } from "../table.tsx";
import type { Role } from "../wire.ts";
import { BUILT_IN_ROLES } from "./api.ts";

interface Props {
  roles: Role[];
  deleting: number | null;
  onEdit: (role: Role) => void;
  onDelete: (role: Role) => void;
}

const permissionsOf = (role: Role) =>
  role.permissions.includes("*")
    ? "Everything (admin)"
    : role.permissions.length > 0
      ? role.permissions.join(", ")
      : "No permissions: only what any signed-in user can do";

export function RoleList({ roles, deleting, onEdit, onDelete }: Props) {
  // admin, vendor and customer are seeded, so an empty list means something is wrong upstream.
  if (roles.length === 0) return <p class="empty">No roles yet. Create one with New role.</p>;
  const columns: Column<Role>[] = [
    { label: "Name", sortBy: (role) => role.name, cell: (role) => <strong dir="auto">{role.name}</strong> },
    { label: "Permissions", cell: permissionsOf },
    {
      label: "Users",
      numeric: true,
      sortBy: (role) => role.users_count,
      cell: (role) => role.users_count.toLocaleString(),
    },
    {
      label: "Actions",
      cell: (role) =>
        BUILT_IN_ROLES.includes(role.name) ? (
          <span class="hint">Built in</span>
        ) : (
          <span class="row-actions">
            <button type="button" class="secondary" onClick={() => onEdit(role)}>
              Edit<span class="visually-hidden"> {role.name}</span>
            </button>
            <button
              type="button"
              class="secondary danger"
              disabled={deleting === role.id}
              onClick={() => onDelete(role)}
            >
              {deleting === role.id ? "Deleting…" : "Delete"}
              <span class="visually-hidden"> {role.name}</span>
            </button>
          </span>
        ),
    },
  ];
  return <Table caption="Roles" columns={columns} rows={roles} rowKey={(role) => role.id} />;
}
