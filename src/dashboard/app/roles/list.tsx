// The roles with their permissions and how many users have each.
import type { Role } from "../wire.ts";

export function RoleList({ roles }: { roles: Role[] }) {
  // admin, vendor and customer are seeded, so an empty list means something is wrong upstream.
  if (roles.length === 0) return <p class="empty">No roles yet. Create one above.</p>;
  return (
    <ul class="rows">
      {roles.map((role) => (
        <li key={role.id} class="row">
          <div class="row-main">
            <strong class="row-name" dir="auto">
              {role.name}
            </strong>
            <span class="hint">
              {role.permissions.includes("*")
                ? "Everything (admin)"
                : role.permissions.length > 0
                  ? role.permissions.join(", ")
                  : "No permissions: only what any signed-in user can do"}
            </span>
            <span class="hint">{role.users_count === 1 ? "1 user" : `${role.users_count} users`}</span>
          </div>
        </li>
      ))}
    </ul>
  );
}
