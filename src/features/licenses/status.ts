import type { License } from "../../db/schema/index.ts";

/** What a license is now, for its owner and its vendor alike: revoked wins over expired, which wins over active. */
export function licenseStatus(license: Pick<License, "revokedAt" | "expires">, now = Date.now()) {
  if (license.revokedAt !== null) return "revoked" as const;
  if (license.expires !== null && license.expires.getTime() <= now) return "expired" as const;
  return "active" as const;
}
