import { count, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { users } from "../../db/schema/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { AppError, Invalid, NotFound } from "../../errors.ts";
import { form } from "../../validation/form.ts";
import { hashPassword } from "../auth/passwords.ts";
import { startSession } from "../sessions/service.ts";
import { createUser, type UserWithRole } from "../users/service.ts";
import { dropSetupCode, issueSetupCode, setupCodeMatches, setupLink } from "./code.ts";
import { SetupBody, type SetupInput } from "./schemas.ts";

/** Once a user exists there is nothing to set up: the routes answer as if they did not exist. */
const closed = () => new NotFound("Route");

/** Setup is open while no user exists. */
export async function setupIsOpen(ctx: Pick<AppContext, "db">): Promise<boolean> {
  const [row] = await ctx.db.select({ n: count() }).from(users);
  return (row?.n ?? 0) === 0;
}

export async function assertSetupOpen(ctx: Pick<AppContext, "db">): Promise<void> {
  if (!(await setupIsOpen(ctx))) throw closed();
}

/** What GET /api/setup answers while setup is open (SetupStateJson); once closed, its 404. */
export async function setupState(ctx: Pick<AppContext, "db">) {
  await assertSetupOpen(ctx);
  return { data: { setup_required: true as const } };
}

/**
 * The body's shape, and the code: a wrong code (an old one, one past its hour) is refused beside the
 * other fields, and nothing happens.
 */
export const SetupForm = form(SetupBody, async (ctx, fields) => {
  if (fields.code !== undefined && !(await setupCodeMatches(ctx, fields.code))) {
    throw new Invalid({ code: ["The setup code is invalid."] });
  }
});

/** Creating the first admin and making a new link take turns, so no link outlives setup. */
const takeFirstAdminLock = (ctx: Pick<AppContext, "db">) =>
  ctx.db.execute(sql`SELECT pg_advisory_xact_lock(hashtext('depot.first_admin'))`);

/**
 * A new setup link for APP_URL (`depot serve` prints one at each start while no user exists, `depot
 * setup:link` on demand): a new code, valid for an hour, and the previous one stops working. Once
 * a user exists there is nothing to set up: 409.
 */
export function newSetupLink(
  ctx: Pick<AppContext, "db" | "config">,
): Promise<{ url: string; expiresAt: Date }> {
  return withTransaction(ctx, async (tx) => {
    await takeFirstAdminLock(tx);
    if (!(await setupIsOpen(tx))) {
      throw new AppError(
        409,
        "Setup is over: a user exists. Sign in, or set a password with depot user:password.",
      );
    }
    const { code, expiresAt } = await issueSetupCode(tx);
    return { url: setupLink(tx.config.appUrl, code), expiresAt };
  });
}

/**
 * Creates the first admin and signs them in. Two requests racing with the right code are serialized
 * by a transaction-scoped advisory lock, so exactly one finds no user and creates one; the other gets
 * the 404 every later request gets. The user, the session and dropping the code are one transaction.
 */
export async function createFirstAdmin(
  ctx: Pick<AppContext, "db" | "config">,
  input: SetupInput,
  client: { ip: string | null; userAgent: string | null },
): Promise<{
  signedIn: UserWithRole;
  token: string;
  session: Awaited<ReturnType<typeof startSession>>["session"];
}> {
  const passwordHash = await hashPassword(input.password);
  return withTransaction(ctx, async (tx) => {
    await takeFirstAdminLock(tx);
    await assertSetupOpen(tx);
    const signedIn = await createUser(
      tx,
      { name: input.name, email: input.email, role: "admin" },
      passwordHash,
    );
    const { token, session } = await startSession(tx, signedIn.user.id, client);
    await dropSetupCode(tx);
    return { signedIn, token, session };
  });
}
