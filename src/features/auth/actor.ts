import type { Role, User } from "../../db/schema/index.ts";

/** Who is making a bearer-authenticated request, and what they may do with this token. */
export interface Actor {
  user: User;
  role: Role;
  tokenId: number;
  permissions: Set<string>;
}

/** Who is calling the license API. A key with a creator acts only for that creator's licenses. */
export interface ApiKeyActor {
  id: number;
  creatorId: number | null;
}
