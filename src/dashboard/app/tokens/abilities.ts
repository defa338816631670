// The abilities a new token may be given: the server's permission list (so the two cannot drift),
// limited to what the signed-in user's role has; the server narrows by role anyway.
import { PERMISSIONS, type Permission } from "../../../features/auth/permissions.ts";
import type { User } from "../wire.ts";

const DESCRIPTIONS: Record<Permission, string> = {
  "users.view": "Read other users' accounts",
  "products.manage": "Create and change products, options and benefits",
  "purchases.view": "Read purchases",
  "versions.publish": "Publish and delete versions (CI uploads)",
};

export interface Ability {
  name: Permission;
  description: string;
}

export function grantableAbilities(user: User): Ability[] {
  const granted = user.role.permissions;
  return PERMISSIONS.filter((name) => granted.includes("*") || granted.includes(name)).map((name) => ({
    name,
    description: DESCRIPTIONS[name],
  }));
}
