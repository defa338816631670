/** Permissions a role or a token may carry. `*` is everything. */
export const PERMISSIONS = ["users.view", "products.manage", "purchases.view", "versions.publish"] as const;
export type Permission = (typeof PERMISSIONS)[number];
export type Grant = Permission | "*";

export const isGrant = (value: string): value is Grant =>
  value === "*" || (PERMISSIONS as readonly string[]).includes(value);

/** What a token may do: its abilities narrowed to its role's permissions (Sanctum's `tokenCan` ∩ role). */
export function effectivePermissions(rolePermissions: string[], tokenAbilities: string[]): Set<string> {
  if (rolePermissions.includes("*")) return new Set(tokenAbilities);
  if (tokenAbilities.includes("*")) return new Set(rolePermissions);
  return new Set(rolePermissions.filter((p) => tokenAbilities.includes(p)));
}

export const allows = (granted: Set<string>, needed: Grant): boolean =>
  granted.has("*") || granted.has(needed);
