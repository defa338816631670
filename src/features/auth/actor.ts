import type { Role, User } from "../../db/schema/index.ts";

/**
 * Who is making an authenticated request, and what they may do with it: a bearer token (its abilities
 * ∩ the role's permissions), the dashboard's session cookie (the role's permissions), or a signed
 * download link, which acts as the user it was issued to (the role's permissions, for that download).
 */
export interface Actor {
  user: User;
  role: Role;
  via: "token" | "session" | "link";
  /** The personal access token; null for a session or a link. */
  tokenId: number | null;
  permissions: Set<string>;
  /**
   * A session, or a token with every ability (`*`): it carries the owner's rights that no ability
   * names (managing a product's licenses). A narrowed token — a CI job's `versions.publish` — does
   * not, so a leaked one cannot issue itself a license or revoke a customer's.
   */
  unrestricted: boolean;
}

/** The dashboard session's user as an actor: exactly the role's permissions. */
export const sessionActorOf = ({ user, role }: { user: User; role: Role }): Actor => ({
  user,
  role,
  via: "session",
  tokenId: null,
  permissions: new Set(role.permissions),
  unrestricted: true,
});

/**
 * The user a signed download link was issued to, as they are now: their role today, not the day the
 * link was sent. A link only downloads, so it carries none of the owner's wider rights.
 */
export const linkActorOf = ({ user, role }: { user: User; role: Role }): Actor => ({
  user,
  role,
  via: "link",
  tokenId: null,
  permissions: new Set(role.permissions),
  unrestricted: false,
});

/** Who is calling the license API. A key with a creator acts only for that creator's licenses. */
export interface ApiKeyActor {
  id: number;
  creatorId: number | null;
}
