import type { AppContext } from "../../src/context.ts";
import { createApiKey } from "../../src/features/api-keys/service.ts";
import { createToken } from "../../src/features/tokens/service.ts";
import { createUser as createUserService } from "../../src/features/users/service.ts";

let sequence = 0;

export async function createUser(
  ctx: Pick<AppContext, "db">,
  overrides: { role?: string; name?: string; email?: string } = {},
) {
  sequence++;
  const { user } = await createUserService(ctx, {
    name: overrides.name ?? `User ${sequence}`,
    email: overrides.email ?? `user${sequence}-${crypto.randomUUID().slice(0, 8)}@example.com`,
    role: overrides.role ?? "customer",
  });
  return user;
}

/** A plaintext bearer token for `user`, optionally limited to `abilities`. */
export async function tokenFor(ctx: Pick<AppContext, "db">, user: { id: number }, abilities?: string[]) {
  const token = await createToken(ctx, user.id, { name: "test", abilities: abilities as never });
  return token.token;
}

export async function apiKeyFor(ctx: Pick<AppContext, "db">, creatorId: number | null = null) {
  return createApiKey(ctx, { name: "test", creatorId });
}
